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

/**
 * Most members one JSON object of a body may have. No request needs more than a few dozen
 * (metadata included); V8 builds an object of hundreds of thousands of members in seconds, with
 * the event loop blocked, and every later copy of it costs as much again.
 */
export const MAX_JSON_OBJECT_MEMBERS = 10_000;

/**
 * Why JSON text is too big in shape to parse (nested too deep, or an object too wide), checked
 * in one pass over the text before it is parsed; undefined when it is within both limits.
 */
export function jsonShapeProblem(text: string): string | undefined {
  // Members of each open object (-1 for an array), by depth.
  const members = new Int32Array(MAX_JSON_DEPTH + 1);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return `nested more than ${MAX_JSON_DEPTH} levels deep`;
      members[depth] = c === 0x7b ? 0 : -1;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x3a && depth > 0 && members[depth]! >= 0) {
      // A colon outside strings ends the name of a member of the innermost object.
      if (++members[depth]! > MAX_JSON_OBJECT_MEMBERS) return `holding an object of more than ${MAX_JSON_OBJECT_MEMBERS} members`;
    }
  }
  return undefined;
}

/** Parses a JSON request body; an empty body is an empty object. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return {};
  const text = body.toString('utf8');
  const problem = jsonShapeProblem(text);
  if (problem !== undefined) throw new AppError('BAD_REQUEST', `JSON body ${problem}`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new AppError('BAD_REQUEST', `Malformed JSON body: ${(error as Error).message}`);
  }
}

/**
 * Parses a JSON request body that must be an object (every JSON body the API takes is one); an
 * empty body is an empty object. Another value is refused as such, in one short sentence: taken
 * for an object, an array or a string would be reported field by field, one per element.
 */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  // The first character tells the kind of value: an array or a string is refused before it is parsed.
  const first = body.find((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09);
  const kind = first === undefined || first === 0x7b ? undefined : JSON_KINDS.get(first);
  if (first === 0x5b || first === 0x22) throw new AppError('BAD_REQUEST', `Expected a JSON object as the body, not ${kind}`);
  // Other values are parsed first: a body that only starts like one (`not json`) is malformed, and said so.
  const value = parseJsonBody(body);
  if (kind !== undefined && (value === null || typeof value !== 'object')) throw new AppError('BAD_REQUEST', `Expected a JSON object as the body, not ${kind}`);
  return value as Record<string, unknown>;
}

/** What JSON value a first character starts (those that can start one). */
const JSON_KINDS = new Map<number, string>([
  [0x5b, 'an array'],
  [0x22, 'a string'],
  [0x6e, 'null'],
  [0x74, 'a boolean'],
  [0x66, 'a boolean'],
  [0x2d, 'a number'],
  ...Array.from({ length: 10 }, (_, digit) => [0x30 + digit, 'a number'] as [number, string]),
]);
