import { z } from 'zod';
import { procedure } from '../../trpc.ts';

const progressSchema = z.object({
  total: z.number().int().meta({ description: 'Pages listed so far' }),
  done: z.number().int().meta({ description: 'Pages written (new or changed)' }),
  skipped: z.number().int().meta({ description: 'Pages unchanged since the last import' }),
  failed: z.number().int().meta({ description: 'Pages that could not be imported' }),
});

export const jobSchema = z.object({
  id: z.string(),
  type: z.string().meta({ description: '"wiki" for a wiki import' }),
  status: z.enum(['pending', 'running', 'done', 'failed']),
  payload: z.record(z.string(), z.unknown()).meta({ description: 'The request parameters, e.g. { spaceKey, namespace }' }),
  progress: progressSchema,
  attempts: z.number().int().meta({ description: 'Attempts started (a retried or resumed job counts each)' }),
  maxAttempts: z.number().int().nullable().meta({ description: 'Attempts the queue gives the job after transient failures (null until it first starts)' }),
  nextAttemptAt: z
    .string()
    .nullable()
    .meta({ description: 'A pending job waiting to be retried after a transient failure: when its next attempt starts' }),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  error: z.string().optional().meta({ description: 'Present on failed jobs' }),
  lastError: z
    .string()
    .optional()
    .meta({ description: 'A job still being retried (pending or running): why its last attempt, or its last upstream request, failed' }),
});

export const listJobs = procedure
  .meta({
    auth: 'admin',
    openapi: {
      method: 'GET',
      path: '/ingest/jobs',
      tags: ['ingest'],
      summary: 'List the last 100 ingestion jobs, newest first',
      protect: true,
    },
    example: {
      output: {
        jobs: [
          {
            id: '9e2c4b7d-1a03-4b6e-8f25-d4c1a7e93b50',
            type: 'wiki',
            status: 'running',
            payload: { spaceKey: 'DOCS', namespace: 'wiki' },
            progress: { total: 240, done: 118, skipped: 61, failed: 1 },
            attempts: 1,
            maxAttempts: 3,
            nextAttemptAt: null,
            createdAt: '2026-11-24T09:30:00.000Z',
            startedAt: '2026-11-24T09:30:01.000Z',
            completedAt: null,
          },
        ],
      },
    },
  })
  .input(z.strictObject({}).optional())
  .output(z.object({ jobs: z.array(jobSchema) }))
  .query(async ({ ctx }) => ({ jobs: await ctx.services.wikiImports.list() }));
