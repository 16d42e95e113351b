import { z } from 'zod';
import { procedure } from '../../trpc.ts';
import { SOURCE_EXAMPLE, sourceIdInput } from './schemas.ts';

export const deleteSource = procedure
  .meta({
    auth: 'admin',
    openapi: {
      method: 'DELETE',
      path: '/sources/{id}',
      tags: ['sources'],
      summary: 'Delete a source, with its documents (`documents=true`) or leaving them in place',
      protect: true,
    },
    errors: { 404: 'No such source' },
    example: { input: { id: SOURCE_EXAMPLE.id, documents: true }, output: { deleted: true, id: SOURCE_EXAMPLE.id, documentsRemoved: 412 } },
  })
  .input(sourceIdInput.extend({ documents: z.boolean().optional().meta({ description: 'Also delete the documents it wrote (default false: they stay, without a source)' }) }))
  .output(z.object({ deleted: z.literal(true), id: z.string(), documentsRemoved: z.number().int() }))
  .mutation(({ ctx, input }) => ctx.services.sources.delete(input.id, { documents: input.documents === true }));
