import { z } from 'zod';

export const documentSchema = z
  .object({
    id: z.string(),
    namespace: z.string(),
    slug: z.string(),
    title: z.string(),
    url: z.string().optional().meta({ description: "The document's canonical link, when it has one" }),
    folder: z.string().optional().meta({ description: 'The folder of the `kb ingest-folder` run that last wrote or confirmed it' }),
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

export const documentIdInput = z.strictObject({ id: z.string().min(1).max(100) });
