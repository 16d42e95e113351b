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

/** Parses a JSON request body; an empty body is an empty object. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new AppError('BAD_REQUEST', `Malformed JSON body: ${(error as Error).message}`);
  }
}
