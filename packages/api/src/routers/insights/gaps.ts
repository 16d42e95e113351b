import { MAX_GAPS_PAGE } from '@kb/core';
import { z } from 'zod';
import { procedure } from '../../trpc.ts';

const gapSchema = z
  .object({
    query: z.string().meta({ description: 'The query as last asked' }),
    count: z.number().int().meta({ description: 'Times it was asked (repeats: the same text, ignoring case and spacing)' }),
    bestScore: z.number().nullable().meta({ description: 'The best of its best scores (cosine similarity 0..1); null when nothing was ever found' }),
    meanScore: z.number().nullable().meta({ description: 'The mean of its best scores; null when nothing was ever found' }),
    namespaces: z.array(z.string()).meta({ description: 'Namespaces it was asked in (empty: all)' }),
    kinds: z.array(z.enum(['search', 'chat'])),
    firstAskedAt: z.string(),
    lastAskedAt: z.string(),
    thumbsDown: z.number().int().meta({ description: 'Thumbs-down votes on answers to it in the window (POST /chat/feedback); such questions come first' }),
    foundNothing: z.number().int().meta({ description: 'Times its chat answer found nothing to draw on; such questions come right after those voted down' }),
    standalone: z
      .string()
      .nullable()
      .meta({ description: 'As a follow-up, the question it stood for when last asked (completed from the conversation); null when asked on its own' }),
  })
  .meta({ id: 'KnowledgeGap' });

export const gapsInput = z.strictObject({
  kind: z.enum(['search', 'chat']).optional().meta({ description: 'Only searches, or only chat questions' }),
  maxScore: z.number().min(0).max(1).optional().meta({ description: 'Only queries whose mean best score is at most this (0..1)' }),
  limit: z.number().int().min(1).optional().meta({ description: `Page size, default 50; above ${MAX_GAPS_PAGE} it is clamped to ${MAX_GAPS_PAGE} (see take)` }),
  offset: z.number().int().min(0).optional().meta({ description: 'Groups to skip, default 0' }),
});

export const knowledgeGaps = procedure
  .meta({
    auth: 'admin',
    openapi: {
      method: 'GET',
      path: '/insights/gaps',
      tags: ['insights'],
      summary: 'The weakest recent searches and chat questions, and those readers voted down, repeats grouped: what the docs do not answer',
      protect: true,
    },
    example: {
      input: { kind: 'chat', maxScore: 0.3, limit: 10 },
      output: {
        gaps: [
          {
            query: 'how do I export my data to CSV?',
            count: 4,
            bestScore: 0.21,
            meanScore: 0.18,
            namespaces: ['user_docs'],
            kinds: ['chat'],
            firstAskedAt: '2026-11-21T14:02:11.000Z',
            lastAskedAt: '2026-11-24T07:45:30.000Z',
            thumbsDown: 1,
            foundNothing: 2,
            standalone: null,
          },
        ],
        total: 1,
        take: 10,
        skip: 0,
      },
    },
  })
  .input(gapsInput)
  .output(z.object({ gaps: z.array(gapSchema), total: z.number().int(), take: z.number().int(), skip: z.number().int() }))
  .query(({ ctx, input }) => ctx.services.queryLog.gaps(input));
