import { canonicalLanguageTag, MAX_CONVERSATIONS_PAGE } from '@kb/core';
import { z } from 'zod';
import { cursorSchema, namespaceSchema, nextCursorSchema } from '../../schemas.ts';
import { procedure } from '../../trpc.ts';
import { languageTagSchema, sourceSchema } from '../chat/schemas.ts';

const feedbackSchema = z
  .object({
    rating: z.enum(['up', 'down']),
    reasons: z.array(z.string()),
    note: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'AnswerFeedback', description: 'The vote on an answer' });

export const messageSchema = z
  .object({
    id: z.string(),
    role: z.enum(['user', 'assistant']),
    content: z.string(),
    sources: z.array(sourceSchema).meta({ description: 'The documents the answer drew on (empty for user messages)' }),
    interrupted: z.literal(true).optional().meta({ description: 'Present on an answer cut short by a disconnect or a failure' }),
    createdAt: z.string(),
    feedback: feedbackSchema
      .nullable()
      .optional()
      .meta({ description: 'A conversation read by id: the vote on this answer by the key that asked (null: none); absent for questions and in listings' }),
  })
  .meta({ id: 'ConversationMessage' });

export const conversationSchema = z
  .object({
    id: z.string(),
    language: z.string().nullable().meta({ description: 'BCP 47 tag of the latest answer' }),
    sources: z.array(z.string()).meta({ description: 'Namespaces the conversation was asked in' }),
    createdAt: z.string(),
    updatedAt: z.string(),
    messages: z.array(messageSchema).meta({ description: 'In order: each question followed by its answer' }),
  })
  .meta({ id: 'Conversation' });

export const listConversationsInput = z.strictObject({
  source: namespaceSchema.optional().meta({ description: 'Conversations asked in this namespace' }),
  language: languageTagSchema.optional().meta({ description: 'Conversations in this language ("fr" also matches "fr-CA")' }),
  limit: z.number().int().min(1).optional().meta({ description: `Page size, default 50; above ${MAX_CONVERSATIONS_PAGE} it is clamped to ${MAX_CONVERSATIONS_PAGE} (see take)` }),
  offset: z.number().int().min(0).optional().meta({ description: 'Conversations to skip, default 0 (or page by cursor)' }),
  cursor: cursorSchema.optional(),
});

export const listConversations = procedure
  .meta({
    auth: 'admin',
    openapi: { method: 'GET', path: '/conversations', tags: ['chat'], summary: 'List stored conversations with their messages, newest first', protect: true },
    example: {
      input: { source: 'user_docs', limit: 1 },
      output: {
        conversations: [
          {
            id: '2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376',
            language: 'en',
            sources: ['user_docs'],
            createdAt: '2026-11-24T10:00:00.000Z',
            updatedAt: '2026-11-24T10:00:04.000Z',
            messages: [
              { id: '9a4d7e21-3c5b-4f80-a1e6-b2c9d0f7e814', role: 'user', content: 'How do I rotate an API key?', sources: [], createdAt: '2026-11-24T10:00:00.000Z' },
              {
                id: 'e6b0c3f9-1d47-4a2e-8c5b-7f3a9d2e0c61',
                role: 'assistant',
                content: 'Create the new key, deploy it, then revoke the old one [1].',
                sources: [{ title: 'Rotating API keys', documentId: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48', slug: 'guides/rotating-keys', namespace: 'user_docs' }],
                createdAt: '2026-11-24T10:00:04.000Z',
              },
            ],
          },
        ],
        total: 12,
        take: 1,
        skip: 0,
        nextCursor: 'WyIyMDI2LTExLTI0VDEwOjAwOjAwLjAwMDAwMFoiLCIyYzhmMWE2ZS0wYjk0LTRkMzctYjVhMi1lOWYwYzFkOGEzNzYiXQ',
      },
    },
  })
  .input(listConversationsInput)
  .output(z.object({ conversations: z.array(conversationSchema), total: z.number().int(), take: z.number().int(), skip: z.number().int(), nextCursor: nextCursorSchema }))
  .query(({ ctx, input }) => {
    const language = input.language === undefined ? undefined : canonicalLanguageTag(input.language);
    return ctx.services.conversations.list({
      ...(input.source !== undefined ? { namespace: input.source } : {}),
      ...(language !== undefined ? { language } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
      ...(input.offset !== undefined ? { offset: input.offset } : {}),
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
    });
  });
