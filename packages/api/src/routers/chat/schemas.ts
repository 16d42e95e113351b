import { canonicalLanguageTag } from '@kb/core';
import { z } from 'zod';
import { jsonBoolean, maxChars, nonBlankText, namespaceFilterSchema } from '../../schemas.ts';

/** Longest question a chat request takes (a pasted error message or log excerpt fits). */
export const MAX_CHAT_MESSAGE_CHARS = 10_000;

/** A BCP 47 language tag, checked (and canonicalised by the procedures that take it). */
export const languageTagSchema = maxChars(z.string(), 64).refine((tag) => canonicalLanguageTag(tag) !== undefined, { message: 'must be a BCP 47 language tag such as "en", "fr" or "pt-BR"' });

/** The body of POST /chat; unknown fields are refused, naming them (a typo is never ignored). */
export const chatInput = z.strictObject({
  message: nonBlankText(MAX_CHAT_MESSAGE_CHARS, 'message must not be empty').meta({ description: "The user's question" }),
  source: namespaceFilterSchema()
    .optional()
    .meta({ description: 'Namespace(s) to search: one or a list of up to 4. Absent or an empty list: all namespaces.' }),
  conversationId: maxChars(z.string().min(1), 100)
    .optional()
    .meta({ description: 'Continues a stored conversation (from an earlier meta event or answer). Unknown: 404.' }),
  language: languageTagSchema
    .optional()
    .meta({ description: "BCP 47 tag of the answer's language. Absent: detected from the message (else the conversation's, else en)." }),
  retrieval: z
    .enum(['standard', 'smart'])
    .optional()
    .meta({ description: 'standard (default): hybrid search, hits widened to their sections. smart: rewritten query and variants, fused and reranked.' }),
  stream: jsonBoolean().optional().meta({ description: 'true (default): Server-Sent Events. false: one JSON answer.' }),
});

export type ChatInput = z.infer<typeof chatInput>;

export const sourceSchema = z
  .object({
    title: z.string(),
    documentId: z.string(),
    slug: z.string(),
    namespace: z.string(),
    url: z.string().optional().meta({ description: "The document's address, when it has one" }),
    anchor: z
      .string()
      .optional()
      .meta({ description: 'With url: the anchor of the section the answer drew on first (GitHub-style heading anchor), to link url#anchor; for a PDF, page=N' }),
    section: z.string().optional().meta({ description: 'The heading of that section, when it is below the title' }),
    page: z.number().int().optional().meta({ description: 'For a PDF: the page the answer drew on first' }),
  })
  .meta({ id: 'ChatSource', description: 'A document the answer draws on' });

export const chatAnswerSchema = z
  .object({
    conversationId: z.string(),
    messageId: z.string().meta({ description: "The answer's id: POST /chat/feedback names it" }),
    answer: z.string().meta({ description: 'Markdown' }),
    sources: z.array(sourceSchema),
    language: z.string().meta({ description: 'BCP 47 tag of the answer' }),
  })
  .meta({ id: 'ChatAnswer' });
