import { z } from 'zod';
import { maxChars } from '../../schemas.ts';
import { procedure } from '../../trpc.ts';
import { documentIdInput } from './schemas.ts';

export const deleteDocument = procedure
  .meta({
    auth: 'admin',
    openapi: {
      method: 'DELETE',
      path: '/documents/{id}',
      tags: ['documents'],
      summary: 'Delete a document and its chunks',
      protect: true,
      errorResponses: { 404: 'No such document' },
    },
    example: { input: { id: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48' }, output: { deleted: true, id: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48' } },
  })
  .input(
    documentIdInput.extend({
      folder: maxChars(z.string().min(1), 4096)
        .optional()
        .meta({ description: 'Delete only while the document records this folder (`kb ingest-folder --prune` sends it); otherwise 404' }),
    }),
  )
  .output(z.object({ deleted: z.literal(true), id: z.string() }))
  .mutation(({ ctx, input }) => ctx.services.documents.delete(input.id, input.folder === undefined ? {} : { folder: input.folder }));
