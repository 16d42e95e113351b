import { spaceKeySchema } from '@kb/core';
import { z } from 'zod';
import { namespaceSchema } from '../../schemas.ts';
import { principalOf, procedure } from '../../trpc.ts';

export const ingestWiki = procedure
  .meta({
    auth: 'apiKey',
    successStatus: 202,
    openapi: {
      method: 'POST',
      path: '/ingest/wiki',
      tags: ['ingest'],
      summary: 'Import a wiki space in the background',
      description:
        'Queues a job that imports every current page of a Confluence space (WIKI_BASE_URL, WIKI_EMAIL, WIKI_API_TOKEN) into the namespace, ' +
        'one document per page with slug wiki:<spaceKey>:<pageId>. Answers 202 at once; follow the job with GET /ingest/jobs. ' +
        'Unchanged pages are skipped, pages deleted from the space are removed once the whole space has been listed. ' +
        '503 when the WIKI_* variables are not set.',
      protect: true,
    },
    errors: { 503: 'Wiki import is not configured, or the job queue is unavailable' },
    example: {
      input: { spaceKey: 'DOCS', namespace: 'wiki' },
      output: { jobId: '9e2c4b7d-1a03-4b6e-8f25-d4c1a7e93b50', status: 'pending' },
    },
  })
  .input(z.strictObject({ spaceKey: spaceKeySchema, namespace: namespaceSchema }))
  .output(z.object({ jobId: z.string(), status: z.literal('pending') }))
  .mutation(async ({ ctx, input }) => {
    const accepted = await ctx.services.wikiImports.submit(input, principalOf(ctx).namespaces, { requestId: ctx.requestId });
    ctx.log.info({ jobId: accepted.jobId, spaceKey: input.spaceKey, namespace: input.namespace }, 'wiki import queued');
    return accepted;
  });
