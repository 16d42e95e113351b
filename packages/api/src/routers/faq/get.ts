import { canonicalLanguageTag, NAMESPACES, rateLimitHeaders } from '@kb/core';
import { z } from 'zod';
import { nonBlankText, oneOf } from '../../schemas.ts';
import { principalOf, procedure } from '../../trpc.ts';
import { languageTagSchema, sourceSchema } from '../chat/schemas.ts';

/** Longest topic the FAQ takes, in characters after trimming. */
export const MAX_FAQ_TOPIC_CHARS = 500;

const SCOPES = [...NAMESPACES, 'all'] as const;

/** Query parameters of GET /faq; an unknown parameter is refused, naming it. */
export const faqInput = z.strictObject({
  q: nonBlankText(MAX_FAQ_TOPIC_CHARS, 'q must not be empty', `q must be at most ${MAX_FAQ_TOPIC_CHARS} characters`).meta({ description: `The FAQ's topic or question, 1 to ${MAX_FAQ_TOPIC_CHARS} characters` }),
  source: z
    .enum(SCOPES, { error: (issue) => oneOf(SCOPES, issue.input) })
    .meta({ description: 'The namespace to draw on, default user_docs; all: every namespace' })
    .optional(),
  lang: languageTagSchema.meta({ description: "BCP 47 tag of the FAQ's language. Absent: detected from q (else en)." }).optional(),
});

const faqSchema = z
  .object({
    query: z.string().meta({ description: 'The topic as asked' }),
    scope: z.string().meta({ description: 'The namespace used, or all' }),
    language: z.string().meta({ description: 'BCP 47 tag of the FAQ' }),
    content: z.string().meta({ description: 'Markdown: 5 to 10 pairs, each a "## Question?" heading followed by its answer and the pages it draws on' }),
    cached: z.boolean().meta({ description: 'true when served from the cache (made by an earlier request)' }),
    sources: z.array(sourceSchema).meta({ description: 'The documents the FAQ draws on' }),
    generatedAt: z.string().meta({ description: 'When the FAQ was made (ISO 8601)' }),
  })
  .meta({ id: 'Faq' });

export const getFaq = procedure
  .meta({
    auth: 'public',
    openapi: {
      method: 'GET',
      path: '/faq',
      tags: ['faq'],
      protect: false,
      summary: 'An FAQ about a topic, made from the knowledge base (public, cached for 7 days)',
      description:
        'No credentials. 404 when the scope holds nothing about the topic. Limited per client address ' +
        '(KB_FAQ_HIT_RATE_LIMIT_PER_MINUTE requests, KB_FAQ_RATE_LIMIT_PER_MINUTE of them not cached) and, for FAQs written by the model, ' +
        'per day across the service (KB_FAQ_DAILY_LIMIT): 429 with Retry-After.',
    },
    limitedPerClient: true,
    publishable: 'read',
    errors: {
      403: "A namespace KB_FAQ_NAMESPACES leaves out; with a key, one outside the key's namespaces, or a publishable key from a page it does not allow",
      404: 'Nothing in the scope is about the topic',
      429: 'Too many FAQ requests from this address, or the daily number of FAQs written by the model is reached (see Retry-After)',
      502: 'The language model did not return a usable FAQ',
      503: 'The language model is unavailable, or this FAQ is still being made',
    },
    example: {
      input: { q: 'API keys', source: 'user_docs', lang: 'en' },
      output: {
        query: 'API keys',
        scope: 'user_docs',
        language: 'en',
        content: '## How do I rotate an API key?\n\nCreate the new key, deploy it, then revoke the old one.\n\nSources: [Rotating API keys](https://docs.example.com/guides/rotating-keys)\n',
        cached: true,
        sources: [
          { title: 'Rotating API keys', documentId: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48', slug: 'guides/rotating-keys', namespace: 'user_docs', url: 'https://docs.example.com/guides/rotating-keys' },
        ],
        generatedAt: '2026-11-24T08:00:00.000Z',
      },
    },
  })
  .input(faqInput)
  .output(faqSchema)
  .query(async ({ ctx, input, signal }) => {
    const language = input.lang === undefined ? undefined : canonicalLanguageTag(input.lang);
    const { faq, rateLimit } = await ctx.services.faq.get(
      { q: input.q, scope: input.source ?? 'user_docs', callerScope: principalOf(ctx).namespaces, clientAddress: ctx.ip, ...(language ? { language } : {}) },
      signal,
      ctx.log,
    );
    Object.assign(ctx.responseHeaders, rateLimitHeaders(rateLimit));
    return faq;
  });
