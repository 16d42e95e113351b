import { z } from 'zod';
import { principalOf, procedure } from '../../trpc.ts';
import { DOCUMENT_EXAMPLE, documentChunkSchema, documentIdInput, documentSchema } from './schemas.ts';

export const getDocument = procedure
  .meta({
    // Any key reads the documents it may search; one outside its namespaces is not found.
    auth: 'apiKey',
    publishable: 'document',
    openapi: {
      method: 'GET',
      path: '/documents/{id}',
      tags: ['documents'],
      summary: "Read a document: its Markdown and its chunks in order (any key, within the key's namespaces)",
      protect: true,
      errorResponses: { 404: "No such document (or one outside the key's namespaces)" },
    },
    example: {
      input: { id: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48' },
      output: {
        ...DOCUMENT_EXAMPLE,
        chunkCount: 1,
        content: '# Rotating API keys\n\nCreate the new key, deploy it, then revoke the old one.\n',
        chunks: [
          {
            chunkId: '51a0e7c3-d9b2-4a6f-8e1d-c07b3f5a9e62',
            headingPath: 'Rotating API keys',
            content: 'Create the new key, deploy it, then revoke the old one.',
            tokenCount: 14,
          },
        ],
      },
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
  .query(({ ctx, input }) => ctx.services.documents.get(input.id, principalOf(ctx).namespaces));
