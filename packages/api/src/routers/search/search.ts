import { z } from 'zod';
import { jsonInt, nonBlankText, namespaceFilterSchema } from '../../schemas.ts';
import { principalOf, procedure } from '../../trpc.ts';

export const searchInput = z.strictObject({
  query: nonBlankText(10_000, 'query must not be empty'),
  source: namespaceFilterSchema()
    .optional()
    .meta({ description: 'Namespace filter: one namespace or a list of up to 4. Absent or an empty list: all namespaces.' }),
  topK: jsonInt(1, 20).optional().meta({ description: 'Maximum results, 1 to 20. Default 5.' }),
  mode: z
    .enum(['semantic', 'hybrid'])
    .optional()
    .meta({
      description:
        'Default: hybrid with the built-in embedder, semantic with Voyage. ' +
        'semantic: ranked by cosine similarity, score = 1 - cosine distance (0..1). ' +
        'hybrid: full-text (BM25) and vector candidates rescored together; score = 0.5 chunk BM25 + 0.35 document BM25 + 0.15 cosine, each normalised over the candidates (0..1, relative to the query).',
    }),
});

const resultSchema = z
  .object({
    chunkId: z.string(),
    documentId: z.string(),
    documentTitle: z.string(),
    slug: z.string().meta({ description: "The document's slug (its key within the namespace)" }),
    url: z.string().optional().meta({ description: "The document's link, when it has one" }),
    anchor: z
      .string()
      .optional()
      .meta({ description: "With url: the anchor of the passage's section (the id its author gave the heading, else its GitHub-style anchor; as chat sources give it), to link url#anchor" }),
    headingPath: z.string().meta({ description: 'Heading trail, document title first, joined by " > " (headings as the site shows them)' }),
    content: z.string(),
    namespace: z.string(),
    page: z.number().int().optional().meta({ description: 'The page of its source the chunk starts on, for a PDF (link url#page=N)' }),
    score: z.number(),
  })
  .meta({ id: 'SearchResult' });

export const search = procedure
  .meta({
    auth: 'apiKey',
    publishable: 'question',
    openapi: { method: 'POST', path: '/search', tags: ['search'], summary: 'Search the knowledge base (ranked chunks, no answer)', protect: true },
    errors: { 503: 'The embedding service failed' },
    example: {
      input: { query: 'how do I rotate an API key?', source: 'user_docs', topK: 1, mode: 'hybrid' },
      output: {
        results: [
          {
            chunkId: '51a0e7c3-d9b2-4a6f-8e1d-c07b3f5a9e62',
            documentId: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48',
            documentTitle: 'Rotating API keys',
            slug: 'guides/rotating-api-keys',
            url: 'https://docs.example.com/guides/rotating-api-keys',
            anchor: 'rotate-without-downtime',
            headingPath: 'Rotating API keys > Rotate without downtime',
            content: 'Create the new key, deploy it, then revoke the old one.',
            namespace: 'user_docs',
            score: 0.87,
          },
        ],
        count: 1,
      },
    },
  })
  .input(searchInput)
  .output(z.object({ results: z.array(resultSchema), count: z.number().int() }))
  .mutation(async ({ ctx, input, signal }) => {
    const namespaces = input.source === undefined ? null : Array.isArray(input.source) ? input.source : [input.source];
    const results = await ctx.services.search.run(
      principalOf(ctx),
      { query: input.query, namespaces, ...(input.topK !== undefined ? { topK: input.topK } : {}), ...(input.mode !== undefined ? { mode: input.mode } : {}) },
      signal,
    );
    return { results, count: results.length };
  });
