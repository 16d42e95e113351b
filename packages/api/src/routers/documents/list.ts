import { MAX_DOCUMENTS_PAGE } from '@kb/core';
import { z } from 'zod';
import { cursorSchema, maxChars, nonBlankText, namespaceSchema, nextCursorSchema } from '../../schemas.ts';
import { procedure } from '../../trpc.ts';
import { DOCUMENT_EXAMPLE, documentSchema } from './schemas.ts';

export const listDocumentsInput = z.strictObject({
  namespace: namespaceSchema.optional().meta({ description: 'Documents of this namespace' }),
  q: nonBlankText(1000, 'q must not be empty').optional().meta({ description: 'Title or slug contains this text, ignoring case' }),
  folder: maxChars(z.string().min(1), 4096).optional().meta({ description: 'Documents a `kb ingest-folder` run over this folder recorded' }),
  sourceId: maxChars(z.string().min(1), 100).optional().meta({ description: 'Documents this source (GET /sources) wrote' }),
  limit: z.number().int().min(1).optional().meta({ description: `Page size, default 50; above ${MAX_DOCUMENTS_PAGE} it is clamped to ${MAX_DOCUMENTS_PAGE} (see take)` }),
  offset: z.number().int().min(0).optional().meta({ description: 'Documents to skip, default 0 (or page by cursor)' }),
  cursor: cursorSchema.optional(),
});

export const listDocuments = procedure
  .meta({
    auth: 'admin',
    openapi: { method: 'GET', path: '/documents', tags: ['documents'], summary: 'List stored documents, most recently updated first', protect: true },
    example: {
      input: { namespace: 'user_docs', q: 'api keys', limit: 20 },
      output: {
        documents: [DOCUMENT_EXAMPLE],
        total: 1,
        take: 20,
        skip: 0,
        nextCursor: null,
      },
    },
  })
  .input(listDocumentsInput)
  .output(z.object({ documents: z.array(documentSchema), total: z.number().int(), take: z.number().int(), skip: z.number().int(), nextCursor: nextCursorSchema }))
  .query(({ ctx, input }) => ctx.services.documents.list(input));
