import { NAMESPACES } from '@kb/core';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const SUPPORTED = ['application/pdf', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'text/html', 'application/xhtml+xml', 'text/markdown', 'text/plain'];

const FIELDS = {
  namespace: { type: 'string', enum: [...NAMESPACES], description: 'Target namespace' },
  title: { type: 'string', maxLength: 1000, pattern: '\\S', description: "Document title. Defaults to the file's own (a PDF's metadata title, an HTML title, the first heading), else its file name. One file only." },
  slug: { type: 'string', maxLength: 1000, pattern: '\\S', description: 'Deduplication key within the namespace. Defaults to the file name, else the title. One file only.' },
  url: { type: 'string', format: 'uri', maxLength: 8192, description: "The file's http(s) address: the document's link, which answers cite (a PDF's with #page=N). One file only." },
  folder: { type: 'string', maxLength: 4096, description: 'The folder a folder sync read the files from' },
};

/**
 * POST /ingest/file, written by hand: trpc-to-openapi describes JSON bodies only. A multipart
 * form (one or more `file` parts and the fields), or the file itself as the body with its type,
 * the fields then in the query. Its security and error answers come from the procedure's meta,
 * as every operation's do.
 */
export function addFilePath(document: { paths?: Record<string, unknown>; components?: { schemas?: Record<string, unknown> } }): void {
  document.components ??= {};
  const schemas = (document.components.schemas ??= {});
  schemas.IngestFileResult = {
    type: 'object',
    description: 'A file ingested (as POST /ingest/md answers, with what the file was)',
    properties: {
      documentId: { type: 'string' },
      skipped: { type: 'boolean', description: 'true when the Markdown the file converts to, and its metadata, matched the stored document: nothing was re-embedded' },
      format: { type: 'string', enum: ['pdf', 'docx', 'html', 'text', 'markdown'] },
      pages: { type: 'integer', description: "A PDF's pages" },
      filename: { type: 'string' },
    },
    required: ['documentId', 'skipped', 'format'],
  };
  schemas.IngestFilesResult = {
    type: 'object',
    description: 'Several files: each file\'s result or refusal, in the order sent',
    properties: {
      documents: {
        type: 'array',
        items: {
          oneOf: [
            ref('IngestFileResult'),
            {
              type: 'object',
              properties: { filename: { type: 'string' }, error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] } },
              required: ['error'],
            },
          ],
        },
      },
    },
    required: ['documents'],
  };
  const raw = Object.fromEntries(SUPPORTED.map((type) => [type, { schema: { type: 'string', format: 'binary' }, example: "(the file's bytes)" }]));
  document.paths ??= {};
  document.paths['/ingest/file'] = {
    post: {
      operationId: 'ingest-file',
      summary: 'Ingest a file: PDF, Word (.docx), HTML, Markdown or plain text',
      description:
        'Converts the file to Markdown (a PDF\'s text layer page by page, each chunk keeping its page; a Word document\'s headings, lists, tables and code; HTML\'s main content) ' +
        'and ingests it as POST /ingest/md does: upserted by slug, skipped when unchanged. Send a multipart/form-data body with one or more `file` parts and the fields, ' +
        'or the file itself as the body with its Content-Type and the fields as query parameters (`filename` names it). ' +
        'A type sent as application/octet-stream is told from the file name, else from the content. The whole body is at most KB_MAX_FILE_BYTES (25 MB). ' +
        'Refused with 422 (nothing written): a PDF without a text layer (a scan: OCR is not supported), an encrypted PDF, a truncated or corrupt file, content that is not its declared type, ' +
        'a Word file inflating past 64 MB, a conversion over its time or memory bound; with 415: another type. Several files: each is answered on its own; the request fails only if all do.',
      tags: ['ingest'],
      parameters: [
        ...Object.entries(FIELDS).map(([name, schema]) => ({ name, in: 'query', required: false, description: `Raw body only: ${schema.description}`, schema: { ...schema, description: undefined } })),
        { name: 'filename', in: 'query', required: false, description: "Raw body only: the file's name (its extension tells an untyped file's format; the default slug)", schema: { type: 'string', maxLength: 1000 } },
      ],
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: { file: { type: 'array', items: { type: 'string', format: 'binary' }, description: 'One or more files (parts named file, each with its filename and Content-Type)' }, ...FIELDS },
              required: ['file', 'namespace'],
            },
            example: { file: ["(guide.pdf's bytes)"], namespace: 'user_docs', url: 'https://docs.example.com/guide.pdf' },
          },
          ...raw,
          'application/octet-stream': { schema: { type: 'string', format: 'binary' }, example: "(the file's bytes: its type is told from filename, else from them)" },
        },
      },
      responses: {
        '200': {
          description: 'One file: its result. Several: each file\'s result or refusal.',
          content: {
            'application/json': {
              schema: { oneOf: [ref('IngestFileResult'), ref('IngestFilesResult')] },
            },
          },
        },
      },
    },
  };
}
