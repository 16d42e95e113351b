import { z } from 'zod';
import { maxChars, nonBlankText, metadataSchema, namespaceSchema } from '../../schemas.ts';
import { principalOf, procedure } from '../../trpc.ts';

export const ingestMarkdownInput = z.strictObject({
  title: nonBlankText(1000, 'title must not be empty'),
  content: z.string().meta({ description: 'Raw Markdown. YAML front matter becomes metadata. May be empty (a document with no chunks).' }),
  namespace: namespaceSchema,
  slug: nonBlankText(1000, 'slug must not be empty').optional().meta({ description: 'Deduplication key within the namespace. Defaults to the title.' }),
  metadata: metadataSchema.optional().meta({ description: 'Arbitrary key-value metadata (JSON, at most 32 levels deep). An http(s) `url` becomes the document\'s link.' }),
  folder: maxChars(z.string().min(1), 4096)
    .optional()
    .meta({ description: 'The folder a folder sync read the document from (`kb ingest-folder --api-url`); recorded even when the document is unchanged, and what `--prune` compares' }),
});

export const ingestResultSchema = z
  .object({
    documentId: z.string(),
    skipped: z.boolean().meta({ description: 'true when the content hash matched the stored document: nothing was re-embedded' }),
  })
  .meta({ id: 'IngestResult' });

export const ingestMarkdown = procedure
  .meta({
    auth: 'apiKey',
    openapi: { method: 'POST', path: '/ingest/md', tags: ['ingest'], summary: 'Ingest a Markdown document', protect: true },
    errors: { 503: 'The embedding service failed; the document was not changed' },
    example: {
      input: {
        title: 'Rotating API keys',
        content: '# Rotating API keys\n\nCreate the new key, deploy it, then revoke the old one.\n',
        namespace: 'user_docs',
        slug: 'guides/rotating-keys',
        metadata: { url: 'https://docs.example.com/guides/rotating-keys' },
      },
      output: { documentId: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48', skipped: false },
    },
  })
  .input(ingestMarkdownInput)
  .output(ingestResultSchema)
  .mutation(async ({ ctx, input, signal }) => {
    const result = await ctx.services.ingestion.ingest(input, signal, principalOf(ctx).namespaces);
    ctx.log.info({ documentId: result.documentId, skipped: result.skipped, chunks: result.chunks }, 'markdown ingested');
    return { documentId: result.documentId, skipped: result.skipped };
  });
