import { FEEDBACK_REASONS, MAX_FEEDBACK_PAGE } from '@kb/core';
import { z } from 'zod';
import { cursorSchema, maxChars, namespaceSchema, nextCursorSchema } from '../../schemas.ts';
import { procedure } from '../../trpc.ts';
import { sourceSchema } from '../chat/schemas.ts';
import { feedbackSchema } from '../chat/feedback.ts';

const entrySchema = feedbackSchema
  .extend({
    conversationId: z.string(),
    keyId: z.string().nullable().meta({ description: 'The key that voted (null: an admin session)' }),
    keyLabel: z.string().nullable(),
    question: z.string().meta({ description: 'The question the answer was to' }),
    answer: z.string().meta({ description: 'The answer voted on (Markdown)' }),
    sources: z.array(sourceSchema),
    namespaces: z.array(z.string()).meta({ description: 'Namespaces the conversation was asked in' }),
    interrupted: z.literal(true).optional().meta({ description: 'Present when the answer was cut short' }),
  })
  .meta({ id: 'FeedbackEntry' });

export const listFeedbackInput = z.strictObject({
  rating: z.enum(['up', 'down']).optional(),
  reason: z.enum(FEEDBACK_REASONS).optional().meta({ description: 'Thumbs-down votes giving this reason' }),
  namespace: namespaceSchema.optional().meta({ description: 'Votes on conversations asked in this namespace' }),
  keyId: maxChars(z.string().min(1), 100).optional().meta({ description: 'Votes by this key' }),
  since: z.iso.datetime({ offset: true }).optional().meta({ description: 'Votes cast or changed at or after this time (ISO 8601)' }),
  limit: z.number().int().min(1).optional().meta({ description: `Page size, default 50; above ${MAX_FEEDBACK_PAGE} it is clamped to ${MAX_FEEDBACK_PAGE} (see take)` }),
  offset: z.number().int().min(0).optional().meta({ description: 'Votes to skip, default 0 (or page by cursor)' }),
  cursor: cursorSchema.optional(),
});

export const listFeedback = procedure
  .meta({
    auth: 'admin',
    openapi: { method: 'GET', path: '/feedback', tags: ['chat'], summary: "Readers' votes on answers, most recent first, with the questions and answers", protect: true },
    example: {
      input: { rating: 'down', limit: 1 },
      output: {
        feedback: [
          {
            messageId: 'e6b0c3f9-1d47-4a2e-8c5b-7f3a9d2e0c61',
            rating: 'down',
            reasons: ['outdated'],
            note: 'The command was renamed in 2.0',
            createdAt: '2026-11-24T10:01:00.000Z',
            updatedAt: '2026-11-24T10:01:00.000Z',
            conversationId: '2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376',
            keyId: '5d2e8f1a-3c4b-4e6d-9f70-8a1b2c3d4e5f',
            keyLabel: 'docs site assistant',
            question: 'How do I rotate an API key?',
            answer: 'Create the new key, deploy it, then revoke the old one [1].',
            sources: [{ title: 'Rotating API keys', documentId: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48', slug: 'guides/rotating-keys', namespace: 'user_docs' }],
            namespaces: ['user_docs'],
          },
        ],
        total: 3,
        take: 1,
        skip: 0,
        nextCursor: 'WyIyMDI2LTExLTI0VDEwOjAxOjAwLjAwMDAwMFoiLCJlNmIwYzNmOS0xZDQ3LTRhMmUtOGM1Yi03ZjNhOWQyZTBjNjEiXQ',
      },
    },
  })
  .input(listFeedbackInput)
  .output(z.object({ feedback: z.array(entrySchema), total: z.number().int(), take: z.number().int(), skip: z.number().int(), nextCursor: nextCursorSchema }))
  .query(({ ctx, input }) => {
    const { since, ...filter } = input;
    return ctx.services.feedback.list({ ...filter, ...(since !== undefined ? { since: new Date(since) } : {}) });
  });
