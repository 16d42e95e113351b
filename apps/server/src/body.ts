import type { IncomingMessage } from 'node:http';
import { AppError } from '@kb/core';

/**
 * Bytes of an oversized body read and thrown away past the limit before the 413 is sent. A client
 * still sending when the server closes the connection gets a reset, not the answer (Node's fetch
 * reports EPIPE), so the rest of a body is read up to this bound; past it the connection is
 * closed while the client sends.
 */
export const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
/** How long the rest of an oversized body is read before the connection is closed instead. */
export const DISCARD_MAX_MS = 30_000;

export interface ReadBodyOptions {
  /** Default DISCARD_MAX_BYTES. */
  discardMaxBytes?: number;
  /** Default DISCARD_MAX_MS. */
  discardMaxMs?: number;
}

/** Requests sent with `Expect: 100-continue` that were not told to continue: their body is not coming. */
const continueWithheld = new WeakSet<IncomingMessage>();

/**
 * Marks a request whose client waits for `100 Continue` and will not get it (its declared body is
 * over the route's limit): readBody then refuses it at once instead of waiting for the body.
 */
export function withholdContinue(req: IncomingMessage): void {
  continueWithheld.add(req);
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than the limit of ${maxBytes} bytes`);
}

/**
 * Reads and throws away what is left of a request body, up to `maxBytes` more or `maxMs`,
 * whichever comes first; then the request is paused. `req.complete` says whether all of it came.
 */
function discardRest(req: IncomingMessage, maxBytes: number, maxMs: number): Promise<void> {
  if (req.complete || req.destroyed || maxBytes <= 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let discarded = 0;
    const stop = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', stop);
      req.off('close', stop);
      req.off('error', stop);
      req.pause();
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      discarded += chunk.length;
      if (discarded > maxBytes) stop();
    };
    const timer = setTimeout(stop, maxMs);
    req.on('data', onData);
    req.once('end', stop);
    req.once('close', stop);
    req.once('error', stop);
    req.resume();
  });
}

/**
 * Reads a request body up to maxBytes. A larger one (declared in Content-Length or streamed) is
 * refused with PAYLOAD_TOO_LARGE after the rest of it has been read and discarded within the
 * bounds in `options`, so that the client, done sending, reads the 413; a body declared beyond
 * those bounds, or one that outlasts them, is refused at once, with `req.complete` false: the
 * caller's answer must then close the connection.
 */
export async function readBody(req: IncomingMessage, maxBytes: number, options: ReadBodyOptions = {}): Promise<Buffer> {
  const discardMaxBytes = options.discardMaxBytes ?? DISCARD_MAX_BYTES;
  const discardMaxMs = options.discardMaxMs ?? DISCARD_MAX_MS;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    if (!continueWithheld.has(req) && declared - maxBytes <= discardMaxBytes) await discardRest(req, declared, discardMaxMs);
    throw tooLarge(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop must not destroy the request: the rest of an oversized body is still read,
  // once the loop's iterator has let go of the stream.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) break;
    chunks.push(chunk);
  }
  if (size > maxBytes) {
    await discardRest(req, maxBytes + discardMaxBytes - size, discardMaxMs);
    throw tooLarge(maxBytes);
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
