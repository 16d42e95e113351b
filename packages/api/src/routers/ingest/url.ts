import { z } from 'zod';
import { nonBlankText, namespaceSchema } from '../../schemas.ts';
import { principalOf, procedure } from '../../trpc.ts';
import { ingestResultSchema } from './markdown.ts';

export const ingestUrl = procedure
  .meta({
    auth: 'apiKey',
    openapi: {
      method: 'POST',
      path: '/ingest/url',
      tags: ['ingest'],
      summary: 'Fetch a page and ingest it',
      description:
        'Fetches an http(s) page (HTML, XHTML, Markdown or plain text; at most 10 MB, 15 s, 5 redirects), keeps the main content of HTML as Markdown, and ingests it with the final URL as slug. ' +
        'Private, loopback and link-local addresses are refused unless KB_ALLOW_PRIVATE_URLS is set. ' +
        '422 when the URL cannot be fetched; the message says why (address not allowed, name not found, timeout, connection refused or reset, ' +
        'the remote status, too large, unsupported content type, too many redirects, a redirect to another scheme).',
      protect: true,
    },
    errors: {
      400: 'Invalid input, a malformed URL or an unsupported scheme (named in the message)',
      422: 'The URL could not be fetched (the message says why)',
      503: 'The embedding service failed; the document was not changed',
    },
    example: {
      input: { url: 'https://docs.example.com/guides/rotating-keys', namespace: 'user_docs' },
      output: { documentId: '0d3a5e61-c2b8-4f17-9d4e-a3b6c8e1f205', skipped: false },
    },
  })
  .input(
    z.strictObject({
      url: nonBlankText(8192, 'url must not be empty'),
      namespace: namespaceSchema,
      title: nonBlankText(1000, 'title must not be empty').optional().meta({ description: "Defaults to the page's own title" }),
    }),
  )
  .output(ingestResultSchema)
  .mutation(async ({ ctx, input, signal }) => {
    const result = await ctx.services.urlIngestion.ingest(input, signal, principalOf(ctx).namespaces);
    ctx.log.info({ documentId: result.documentId, skipped: result.skipped, chunks: result.chunks }, 'URL ingested');
    return { documentId: result.documentId, skipped: result.skipped };
  });
