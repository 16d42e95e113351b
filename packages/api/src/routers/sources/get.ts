import { procedure } from '../../trpc.ts';
import { SOURCE_EXAMPLE, sourceIdInput, sourceSchema } from './schemas.ts';

export const getSource = procedure
  .meta({
    auth: 'admin',
    openapi: {
      method: 'GET',
      path: '/sources/{id}',
      tags: ['sources'],
      summary: 'Read a source: its status, last and next sync, and the page figures of the last sync',
      protect: true,
    },
    errors: { 404: 'No such source' },
    example: { input: { id: SOURCE_EXAMPLE.id }, output: SOURCE_EXAMPLE },
  })
  .input(sourceIdInput)
  .output(sourceSchema)
  .query(({ ctx, input }) => ctx.services.sources.get(input.id));
