import { procedure } from '../../trpc.ts';
import { createSourceInput, SOURCE_EXAMPLE, sourceSchema } from './schemas.ts';

export const createSource = procedure
  .meta({
    auth: 'admin',
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/sources',
      tags: ['sources'],
      summary: 'Add a source (a docs website, a Confluence space) and, unless `sync: false`, queue its first sync',
      description:
        'A `website` source is a start URL (links are followed within scope) and/or a sitemap URL (indexes too), scoped by hosts, path prefix and ' +
        'include/exclude patterns, with a page cap and a link depth; PDFs it links to are read page by page. Syncs honour robots.txt. ' +
        "A `confluence` source is a space key, read with the server's Confluence account (WIKI_*). Syncs run as jobs; see docs/sources.md.",
      protect: true,
      successDescription: 'Created',
    },
    errors: { 503: 'The job queue is unavailable (the source is created; sync it again later), or a `confluence` source is asked for and WIKI_* are not set' },
    example: {
      input: { kind: 'website', name: 'Product docs', namespace: 'user_docs', settings: { startUrl: 'https://docs.example.com/', exclude: ['/blog/*'] }, scheduleMinutes: 1440 },
      output: { ...SOURCE_EXAMPLE, status: 'queued', lastSync: null },
    },
  })
  .input(createSourceInput)
  .output(sourceSchema)
  .mutation(async ({ ctx, input }) => {
    const created = await ctx.services.sources.create(input);
    ctx.log.info({ sourceId: created.id, kind: created.kind, namespace: created.namespace }, 'source created');
    if (input.sync === false) return created;
    await ctx.services.sources.syncNow(created.id, { requestId: ctx.requestId });
    return ctx.services.sources.get(created.id);
  });
