import { z } from 'zod';
import { procedure } from '../../trpc.ts';
import { listSourcesInput, nextCursorSchema, SOURCE_EXAMPLE, sourceSchema } from './schemas.ts';

export const listSources = procedure
  .meta({
    auth: 'admin',
    openapi: { method: 'GET', path: '/sources', tags: ['sources'], summary: 'List sources, newest first', protect: true },
    example: { input: { limit: 20 }, output: { sources: [SOURCE_EXAMPLE], take: 20, nextCursor: null } },
  })
  .input(listSourcesInput)
  .output(z.object({ sources: z.array(sourceSchema), take: z.number().int(), nextCursor: nextCursorSchema }))
  .query(({ ctx, input }) => ctx.services.sources.list(input));
