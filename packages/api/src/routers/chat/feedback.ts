import { FEEDBACK_REASONS, MAX_FEEDBACK_NOTE_CHARS } from '@kb/core';
import { z } from 'zod';
import { maxChars } from '../../schemas.ts';
import { principalOf, procedure } from '../../trpc.ts';

export const feedbackReasonSchema = z.enum(FEEDBACK_REASONS);

export const feedbackSchema = z
  .object({
    messageId: z.string(),
    rating: z.enum(['up', 'down']),
    reasons: z.array(z.string()),
    note: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Feedback' });

export const sendFeedback = procedure
  .meta({
    auth: 'apiKey',
    publishable: 'read',
    openapi: {
      method: 'POST',
      path: '/chat/feedback',
      tags: ['chat'],
      summary: 'Vote on an answer: thumbs up, or down with reasons and a note',
      description: 'The key (or admin session) that asked may vote; a later vote replaces the earlier one. Any other caller gets 404, as for an unknown answer.',
      protect: true,
    },
    errors: { 404: 'No such answer (or one another key asked for)' },
    example: {
      input: { messageId: 'e6b0c3f9-1d47-4a2e-8c5b-7f3a9d2e0c61', rating: 'down', reasons: ['outdated'], note: 'The command was renamed in 2.0' },
      output: {
        messageId: 'e6b0c3f9-1d47-4a2e-8c5b-7f3a9d2e0c61',
        rating: 'down',
        reasons: ['outdated'],
        note: 'The command was renamed in 2.0',
        createdAt: '2026-11-24T10:01:00.000Z',
        updatedAt: '2026-11-24T10:01:00.000Z',
      },
    },
  })
  .input(
    z.strictObject({
      messageId: maxChars(z.string().min(1), 100).meta({ description: 'The answer: messageId of the meta event or of the JSON answer' }),
      rating: z.enum(['up', 'down']),
      reasons: z.array(feedbackReasonSchema).max(FEEDBACK_REASONS.length).optional().meta({ description: 'With a thumbs-down: why' }),
      note: maxChars(z.string(), MAX_FEEDBACK_NOTE_CHARS).nullable().optional().meta({ description: `What the reader adds, at most ${MAX_FEEDBACK_NOTE_CHARS} characters` }),
    }),
  )
  .output(feedbackSchema)
  .mutation(async ({ ctx, input }) => {
    const vote = await ctx.services.feedback.vote(principalOf(ctx), input);
    ctx.log.info({ messageId: vote.messageId, rating: vote.rating }, 'answer feedback');
    return vote;
  });
