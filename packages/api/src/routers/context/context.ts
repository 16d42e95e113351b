import { MAX_CONTEXT_TOKENS, MIN_CONTEXT_TOKENS } from '@kb/core';
import { z } from 'zod';
import { jsonInt, nonBlankText, namespaceFilterSchema } from '../../schemas.ts';
import { principalOf, procedure } from '../../trpc.ts';
import { MAX_CHAT_MESSAGE_CHARS } from '../chat/schemas.ts';

export const contextInput = z.strictObject({
  question: nonBlankText(MAX_CHAT_MESSAGE_CHARS, 'question must not be empty').meta({ description: 'The question your model is to answer' }),
  source: namespaceFilterSchema()
    .optional()
    .meta({ description: 'Namespace(s) to read: one or a list of up to 4. Absent or an empty list: all namespaces (of the key).' }),
  maxTokens: jsonInt(MIN_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS)
    .optional()
    .meta({
      description: `Budget of the passages' text, in estimated tokens (about 4 characters of English each), ${MIN_CONTEXT_TOKENS} to ${MAX_CONTEXT_TOKENS}. Default: the chat's own budget (KB_CHAT_CONTEXT_TOKENS, 3000).`,
    }),
});

const passageSchema = z
  .object({
    documentId: z.string(),
    title: z.string().meta({ description: "The document's title" }),
    slug: z.string(),
    namespace: z.string(),
    url: z.string().optional().meta({ description: "The document's link, when it has one" }),
    anchor: z.string().optional().meta({ description: "With url: the anchor of the passage's section, to link url#anchor" }),
    headingPath: z.string().meta({ description: 'The section: its heading trail, document title first, joined by " > "' }),
    content: z.string().meta({ description: "The section's Markdown (its matching chunks when the whole section is over budget)" }),
    tokens: z.number().int().meta({ description: 'Estimated tokens of content' }),
  })
  .meta({ id: 'ContextPassage', description: 'A passage an answer would be written from' });

export const contextOutput = z
  .object({
    passages: z.array(passageSchema).meta({ description: 'Most relevant first; at most 5 documents. Empty: the knowledge base holds nothing on the question.' }),
    tokens: z.number().int().meta({ description: "Estimated tokens of the passages' content together, at most maxTokens" }),
    maxTokens: z.number().int().meta({ description: 'The budget applied' }),
  })
  .meta({ id: 'Context' });

/**
 * POST /context: what the chat would answer from, for a caller that writes the answer with its own
 * model. A question as for a search (publishable keys: counted against the visitor's questions).
 */
export const context = procedure
  .meta({
    auth: 'apiKey',
    publishable: 'question',
    openapi: {
      method: 'POST',
      path: '/context',
      tags: ['search'],
      summary: 'The passages an answer would be written from, within a token budget (for your own model)',
      description:
        'Retrieves as POST /chat does (hybrid search, hits widened to their sections, near-duplicates dropped) and returns the passages instead of an answer. ' +
        "Nothing is stored in a conversation; the question is logged as searches are (knowledge gaps).",
      protect: true,
    },
    errors: { 503: 'The embedding service failed' },
    example: {
      input: { question: 'How do I rotate an API key?', source: 'user_docs', maxTokens: 1500 },
      output: {
        passages: [
          {
            documentId: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48',
            title: 'Rotating API keys',
            slug: 'guides/rotating-api-keys',
            namespace: 'user_docs',
            url: 'https://docs.example.com/guides/rotating-api-keys',
            anchor: 'rotate-without-downtime',
            headingPath: 'Rotating API keys > Rotate without downtime',
            content: '## Rotate without downtime\n\nCreate the new key, deploy it, then revoke the old one.',
            tokens: 19,
          },
        ],
        tokens: 19,
        maxTokens: 1500,
      },
    },
  })
  .input(contextInput)
  .output(contextOutput)
  .mutation(({ ctx, input, signal }) => {
    const namespaces = input.source === undefined ? null : Array.isArray(input.source) ? input.source : [input.source];
    return ctx.services.context.run(
      principalOf(ctx),
      { question: input.question, namespaces, ...(input.maxTokens !== undefined ? { maxTokens: input.maxTokens } : {}) },
      signal,
    );
  });
