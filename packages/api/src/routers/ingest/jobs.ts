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
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  error: z.string().optional().meta({ description: 'Present on failed jobs' }),
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
      // 400 for a query parameter (it takes none); not the generator's default 404.
      errorResponses: [400, 401, 403, 500],
    },
  })
  .input(z.strictObject({}).optional())
  .output(z.object({ jobs: z.array(jobSchema) }))
  .query(async ({ ctx }) => ({ jobs: await ctx.services.wikiImports.list() }));
