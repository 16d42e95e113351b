import { z } from 'zod';
import { procedure } from '../../trpc.ts';
import { documentChunkSchema, documentIdInput, documentSchema } from './schemas.ts';

export const getDocument = procedure
  .meta({
    auth: 'admin',
    openapi: {
      method: 'GET',
      path: '/documents/{id}',
      tags: ['documents'],
      summary: 'Read a document: its Markdown and its chunks in order',
      protect: true,
      errorResponses: { 404: 'No such document' },
    },
  })
  .input(documentIdInput)
  .output(
    documentSchema
      .extend({
        content: z.string().meta({ description: 'The Markdown as ingested' }),
        chunks: z.array(documentChunkSchema).meta({ description: 'Child chunks in document order' }),
      })
      .meta({ id: 'DocumentDetail' }),
  )
  .query(({ ctx, input }) => ctx.services.documents.get(input.id));
