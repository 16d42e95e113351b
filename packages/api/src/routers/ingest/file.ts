import type { AppError } from '@kb/core';
import { z } from 'zod';
import { maxChars, nonBlankText, namespaceSchema } from '../../schemas.ts';
import { createCallerFactory, principalOf, procedure, router } from '../../trpc.ts';
import type { RequestContext } from '../../context.ts';

/** Most files one request may carry. */
export const MAX_FILES_PER_REQUEST = 100;

const httpUrl = nonBlankText(8192, 'url must not be empty').refine((url) => /^https?:\/\/\S+$/i.test(url) && URL.canParse(url), {
  message: 'url must be an http or https URL',
});

const fileSchema = z.strictObject({
  bytes: z.instanceof(Uint8Array),
  mediaType: z.string().max(255).optional(),
  filename: maxChars(z.string().min(1), 1000).optional(),
});

/** What the file route hands the procedure: the form's fields (or the query's) and the files. */
export const ingestFileInput = z
  .strictObject({
    namespace: namespaceSchema,
    title: nonBlankText(1000, 'title must not be empty').optional(),
    slug: nonBlankText(1000, 'slug must not be empty').optional(),
    url: httpUrl.optional(),
    folder: maxChars(z.string().min(1), 4096).optional(),
    files: z.array(fileSchema).min(1, 'no file was sent').max(MAX_FILES_PER_REQUEST, `at most ${MAX_FILES_PER_REQUEST} files a request`),
  })
  .refine((input) => input.files.length === 1 || (input.title === undefined && input.slug === undefined && input.url === undefined), {
    message: 'title, slug and url name one file: send several files without them (each is named by its file name)',
    path: ['files'],
  });

export type IngestFileRequest = z.infer<typeof ingestFileInput>;

const fileResult = z.object({
  documentId: z.string(),
  skipped: z.boolean(),
  format: z.enum(['pdf', 'docx', 'html', 'text', 'markdown']),
  pages: z.number().int().optional(),
  filename: z.string().optional(),
});

export const ingestFileOutput = z.union([
  fileResult,
  z.object({
    documents: z.array(z.union([fileResult, z.object({ filename: z.string().optional(), error: z.object({ code: z.string(), message: z.string() }) })])),
  }),
]);

/**
 * POST /ingest/file, served by the server's file route (a multipart or raw body, which the REST
 * adapter cannot read): it calls this procedure with the files, so access, rate limits and the
 * fields are checked as for every procedure. One file answers as /ingest/md does (with its
 * format and pages); several answer each file's result or refusal, unless all were refused.
 */
export const ingestFile = procedure
  .meta({
    auth: 'apiKey',
    restRoute: { method: 'POST', path: '/ingest/file' },
    errors: {
      413: 'The body is larger than KB_MAX_FILE_BYTES (25 MB by default)',
      415: 'A type the service does not read (the message names those it does)',
      422: 'The file cannot be read: no text layer (a scan: OCR is not supported), encrypted, truncated or corrupt, not what its type says, or over the limits of a conversion',
      503: 'The embedding service failed; the document was not changed',
    },
    example: {
      input: { namespace: 'user_docs', files: [{ bytes: new TextEncoder().encode('%PDF-1.7'), mediaType: 'application/pdf', filename: 'guide.pdf' }] },
      output: { documentId: '5e2b9c1d-7a43-4f08-b6e1-93d0c2a8f417', skipped: false, format: 'pdf', pages: 12, filename: 'guide.pdf' },
    },
  })
  .input(ingestFileInput)
  .output(ingestFileOutput)
  .mutation(async ({ ctx, input, signal }) => {
    const scope = principalOf(ctx).namespaces;
    const common = {
      namespace: input.namespace,
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.slug !== undefined ? { slug: input.slug } : {}),
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.folder !== undefined ? { folder: input.folder } : {}),
    };
    const files = input.files.map((file) => ({ ...common, ...file }));
    const outcomes = await ctx.services.fileIngestion.ingestEach(files, signal, scope);
    for (const outcome of outcomes) {
      if ('error' in outcome) continue;
      ctx.log.info({ documentId: outcome.documentId, skipped: outcome.skipped, chunks: outcome.chunks, format: outcome.format, filename: outcome.filename }, 'file ingested');
    }
    const answer = (outcome: (typeof outcomes)[number]) =>
      'error' in outcome
        ? { ...(outcome.filename !== undefined ? { filename: outcome.filename } : {}), error: { code: outcome.error.code, message: outcome.error.message } }
        : {
            documentId: outcome.documentId,
            skipped: outcome.skipped,
            format: outcome.format,
            ...(outcome.pages !== undefined ? { pages: outcome.pages } : {}),
            ...(outcome.filename !== undefined ? { filename: outcome.filename } : {}),
          };
    // Every file refused: the request is refused, as the first file's refusal.
    const refused = outcomes.filter((o): o is Extract<typeof o, { error: AppError }> => 'error' in o);
    if (refused.length === outcomes.length) throw refused[0]!.error;
    if (input.files.length === 1) return answer(outcomes[0]!) as z.infer<typeof fileResult>;
    return { documents: outcomes.map(answer) };
  });

const fileRouter = router({ file: ingestFile });

/** The file procedure, called by the file route with the request's context. */
export function createFileIngestCaller(ctx: RequestContext, options: { signal?: AbortSignal } = {}) {
  return createCallerFactory(fileRouter)(ctx, options);
}
