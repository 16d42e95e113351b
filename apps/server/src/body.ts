import type { IncomingMessage } from 'node:http';
import { AppError } from '@kb/core';

/** Reads a request body up to maxBytes, refusing larger ones early (Content-Length) or as they stream. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than the limit of ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than the limit of ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export function mediaType(req: IncomingMessage): string | undefined {
  const header = req.headers['content-type'];
  return header ? header.split(';')[0]!.trim().toLowerCase() : undefined;
}

export function isJsonMediaType(type: string | undefined): boolean {
  return type === 'application/json' || (type !== undefined && /^application\/[\w.+-]+\+json$/.test(type));
}

/**
 * Deepest nesting of arrays and objects a JSON body may have. No request of the API needs more
 * than a few levels (metadata objects included); a body nested thousands of levels deep would
 * exhaust the stack of code that walks it.
 */
export const MAX_JSON_DEPTH = 64;

/** The nesting depth of JSON text (arrays and objects), counting outside strings only. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return deepest;
}

/**
 * Reads and parses a JSON request body: 413 over `maxBytes`, 415 for a body of another media
 * type, 400 for malformed or too deeply nested JSON; an empty body is an empty object.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const type = mediaType(req);
  const body = await readBody(req, maxBytes);
  if (body.length > 0 && !isJsonMediaType(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', type ? `Unsupported content type "${type}": send application/json` : 'Missing Content-Type: send application/json');
  }
  return parseJsonBody(body);
}

/** Parses a JSON request body; an empty body is an empty object. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return {};
  const text = body.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AppError('BAD_REQUEST', `Malformed JSON body: ${(error as Error).message}`);
  }
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw new AppError('BAD_REQUEST', `JSON body nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  return value;
}
