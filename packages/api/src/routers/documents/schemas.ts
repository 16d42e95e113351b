import { z } from 'zod';
import { maxChars } from '../../schemas.ts';

export const documentSchema = z
  .object({
    id: z.string(),
    namespace: z.string(),
    slug: z.string(),
    title: z.string(),
    url: z.string().optional().meta({ description: "The document's canonical link, when it has one" }),
    folder: z.string().optional().meta({ description: 'The folder of the `kb ingest-folder` run that last wrote or confirmed it' }),
    sourceId: z.string().optional().meta({ description: 'The source (GET /sources/{id}) that wrote it, if any' }),
    metadata: z.record(z.string(), z.unknown()),
    chunkCount: z.number().int().meta({ description: 'Child chunks (the searchable pieces)' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Document' });

export const documentChunkSchema = z
  .object({
    chunkId: z.string(),
    headingPath: z.string().meta({ description: 'Heading trail, document title first, joined by " > "' }),
    content: z.string(),
    tokenCount: z.number().int(),
  })
  .meta({ id: 'DocumentChunk' });

export const documentIdInput = z.strictObject({ id: maxChars(z.string().min(1), 100) });

/** The document the operations' examples show. */
export const DOCUMENT_EXAMPLE = {
  id: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48',
  namespace: 'user_docs',
  slug: 'guides/rotating-api-keys',
  title: 'Rotating API keys',
  url: 'https://docs.example.com/guides/rotating-api-keys',
  folder: '/srv/docs',
  metadata: { tags: ['security'] },
  chunkCount: 3,
  createdAt: '2026-11-20T09:12:44.000Z',
  updatedAt: '2026-11-24T08:01:10.000Z',
};
