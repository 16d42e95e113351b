import { z } from 'zod';
import { procedure } from '../../trpc.ts';
import { SOURCE_EXAMPLE, sourceIdInput } from './schemas.ts';

export const syncSource = procedure
  .meta({
    auth: 'admin',
    successStatus: 202,
    openapi: {
      method: 'POST',
      path: '/sources/{id}/sync',
      tags: ['sources'],
      summary: 'Sync a source now (in the background)',
      description: 'Queues a sync job and answers 202 at once; follow it with GET /sources/{id} or GET /ingest/jobs. One sync of a source runs at a time: 409 while one is queued or running.',
      protect: true,
    },
    errors: { 404: 'No such source', 409: 'A sync of this source is already queued or running', 503: 'The job queue is unavailable' },
    example: { input: { id: SOURCE_EXAMPLE.id }, output: { jobId: '9e2c4b7d-1a03-4b6e-8f25-d4c1a7e93b50', status: 'pending' } },
  })
  .input(sourceIdInput)
  .output(z.object({ jobId: z.string(), status: z.literal('pending') }))
  .mutation(async ({ ctx, input }) => {
    const accepted = await ctx.services.sources.syncNow(input.id, { requestId: ctx.requestId });
    ctx.log.info({ sourceId: input.id, jobId: accepted!.jobId }, 'source sync queued');
    return accepted!;
  });
