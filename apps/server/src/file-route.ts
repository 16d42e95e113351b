import type { ServerResponse } from 'node:http';
import { createFileIngestCaller, restErrorResponse, type IngestFileRequest, type RequestContext } from '@kb/api';
import { FILE_MEDIA_TYPES, SUPPORTED_FILE_TYPES } from '@kb/content';
import { AppError } from '@kb/core';

/** The metadata fields of a file upload: form fields of a multipart body, else query parameters. */
export const FILE_FIELDS = ['namespace', 'title', 'slug', 'url', 'folder'] as const;
/** Query parameters the route reads (a raw body's fields and its file name). */
export const FILE_QUERY = [...FILE_FIELDS, 'filename'] as const;

/** Body types the route takes: the file types, a form, and untyped bytes. */
export const FILE_BODY_TYPES: ReadonlySet<string> = new Set([...FILE_MEDIA_TYPES.keys(), 'multipart/form-data', 'application/octet-stream']);

export function fileBodyRefusal(type: string | undefined): string {
  return `${type ? `Unsupported content type "${type}"` : 'Missing Content-Type'}: send multipart/form-data, or the file with its type: ${SUPPORTED_FILE_TYPES}`;
}

/** The file name of a Content-Disposition header (`filename*=UTF-8''...` or `filename="..."`). */
function dispositionFilename(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8)?''([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!.trim());
    } catch {
      return undefined;
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(header);
  return plain ? (plain[1] ?? plain[2]) : undefined;
}

/** Reads a multipart/form-data body: `file` parts and the fields; anything else is refused by name. */
async function readForm(body: Buffer, contentType: string): Promise<Omit<IngestFileRequest, 'namespace'> & { namespace?: string }> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new AppError('BAD_REQUEST', 'Malformed multipart/form-data body (check its boundary and parts)');
  }
  const fields: Record<string, string> = {};
  const files: IngestFileRequest['files'] = [];
  for (const [name, value] of form.entries()) {
    if (name === 'file' || name === 'files') {
      if (typeof value === 'string') throw new AppError('BAD_REQUEST', `The "${name}" part must be a file (with a filename), not a text field`);
      files.push({
        bytes: new Uint8Array(await value.arrayBuffer()),
        ...(value.type ? { mediaType: value.type } : {}),
        ...(value.name ? { filename: value.name } : {}),
      });
    } else if ((FILE_FIELDS as readonly string[]).includes(name)) {
      if (typeof value !== 'string') throw new AppError('BAD_REQUEST', `The "${name}" part must be a text field, not a file`);
      if (name in fields) throw new AppError('BAD_REQUEST', `The "${name}" field is given more than once`);
      fields[name] = value;
    } else {
      throw new AppError('BAD_REQUEST', `Unknown form field "${name.slice(0, 100)}": it takes "file" parts and ${FILE_FIELDS.map((f) => `"${f}"`).join(', ')}`);
    }
  }
  return { ...fields, files };
}

/**
 * POST /api/v1/ingest/file (docs/ingestion.md): a multipart form, or a file as the body. The body
 * was read within KB_MAX_FILE_BYTES and its type checked by the route table; this reads the files
 * and fields and calls the file procedure, which checks access, limits and fields as every
 * procedure does, and answers its errors as the REST API does.
 */
export async function handleFileRoute(res: ServerResponse, ctx: RequestContext, request: { url: URL; body: Buffer; mediaType: string; contentType: string; disposition: string | undefined }): Promise<void> {
  try {
    const query = Object.fromEntries(request.url.searchParams.entries());
    let input: Record<string, unknown>;
    if (request.mediaType === 'multipart/form-data') {
      const named = Object.keys(query);
      if (named.length > 0) throw new AppError('BAD_REQUEST', `A multipart body takes its fields in the form, not the query (${named.map((n) => `"${n.slice(0, 100)}"`).join(', ')})`);
      input = await readForm(request.body, request.contentType);
    } else {
      const { filename: named, ...fields } = query;
      const filename = named ?? dispositionFilename(request.disposition);
      input = {
        ...fields,
        files: [{ bytes: new Uint8Array(request.body.buffer, request.body.byteOffset, request.body.byteLength), mediaType: request.contentType, ...(filename ? { filename } : {}) }],
      };
    }
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
    });
    const result = await createFileIngestCaller(ctx, { signal: controller.signal }).file(input as IngestFileRequest);
    const text = JSON.stringify(result);
    res.writeHead(200, { ...ctx.responseHeaders, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
    res.end(text);
  } catch (error) {
    const { status, headers, body } = restErrorResponse(error, ctx);
    if (status >= 500) ctx.log.error({ err: error }, 'file ingestion failed');
    else ctx.log.debug({ status, message: body.message }, 'file refused');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
    res.end(text);
  }
}
