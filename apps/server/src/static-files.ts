import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * Static files as the server sends them (the API reference's bundle, the admin console's build):
 * bytes held in memory with their gzipped copy and an ETag, answered 304 to a matching
 * If-None-Match, gzipped when the client takes it, with whatever caching and security headers
 * the caller gives.
 */

export interface StaticBody {
  type: string;
  raw: Buffer;
  /** The gzipped bytes; none for formats that are compressed already. */
  gzip: Buffer | undefined;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
};

/** The Content-Type of a file by its extension; undefined for one the server does not send. */
export function contentTypeOf(name: string): string | undefined {
  return TYPES[extname(name).toLowerCase()];
}

/** Whether a format gains from gzip (text does; PNG, JPEG, WOFF2 and the like are compressed already). */
function compressible(type: string): boolean {
  return type.startsWith('text/') || type === 'application/json' || type === 'image/svg+xml';
}

/** A file's bytes, their gzip (for text) and their ETag. */
export function staticBody(type: string, raw: Buffer): StaticBody {
  const etag = `"${createHash('sha256').update(raw).digest('base64url').slice(0, 27)}"`;
  return { type, raw, gzip: compressible(type) ? gzipSync(raw) : undefined, etag };
}

/**
 * Whether the client takes gzip: named in Accept-Encoding (or `*`) with a weight above 0, so
 * `gzip;q=0` (refused) gets the plain bytes.
 */
function acceptsGzip(req: IncomingMessage): boolean {
  let gzip: boolean | undefined;
  let any = false;
  for (const entry of String(req.headers['accept-encoding'] ?? '').split(',')) {
    const [name = '', ...params] = entry.trim().toLowerCase().split(';');
    const weight = params.map((param) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    const accepted = weight === undefined || Number(weight) > 0;
    const coding = name.trim();
    if (coding === 'gzip' || coding === 'x-gzip') gzip = accepted;
    else if (coding === '*') any = accepted;
  }
  return gzip ?? any;
}

/** Whether If-None-Match names the file's current ETag (weakly compared, as for GET), or is `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/** Sends `file` (200, or 304 when the client holds it already) with `headers`; HEAD gets no body. */
export function sendStatic(req: IncomingMessage, res: ServerResponse, file: StaticBody, headers: Record<string, string>, status = 200): void {
  const common = { ...headers, ETag: file.etag, Vary: 'Accept-Encoding', 'X-Content-Type-Options': 'nosniff' };
  if (status === 200 && matches(req.headers['if-none-match'], file.etag)) {
    res.writeHead(304, common);
    res.end();
    return;
  }
  const gzip = file.gzip && acceptsGzip(req) ? file.gzip : undefined;
  const bytes = gzip ?? file.raw;
  res.writeHead(status, {
    ...common,
    'Content-Type': file.type,
    'Content-Length': bytes.length,
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

/** Files whose address carries their version or content hash: a new file gets a new address. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
