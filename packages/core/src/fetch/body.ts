/**
 * Reading a response body under a byte cap: decompression is streamed and the cap applies to the
 * decoded bytes, so a compression bomb is stopped after maxBytes of output, not after inflating it.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import { FetchFailedError } from './errors.ts';

/** The codings sent in Accept-Encoding; each one has a streaming decoder below. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * HTTP "deflate" is meant to be zlib-wrapped (RFC 9110), but some servers send raw deflate.
 * The first byte tells them apart: a zlib header is 0x?8 with a window size of at most 32 KB.
 */
class DeflateDecoder extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | undefined;
  private flushCallback: TransformCallback | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.inner) {
      const first = chunk[0]!;
      const second = chunk[1];
      const zlibHeader =
        (first & 0x0f) === 8 && first >> 4 <= 7 && (second === undefined || (first * 256 + second) % 31 === 0);
      const inner = zlibHeader ? zlib.createInflate() : zlib.createInflateRaw();
      inner.on('data', (data: Buffer) => this.push(data));
      inner.on('error', (error) => this.destroy(error));
      inner.on('end', () => this.flushCallback?.());
      this.inner = inner;
    }
    this.inner.write(chunk, () => callback());
  }

  override _flush(callback: TransformCallback): void {
    if (!this.inner) return callback();
    this.flushCallback = callback;
    this.inner.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.inner?.destroy();
    callback(error);
  }
}

function createDecoder(coding: string): Transform {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return new DeflateDecoder();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      throw new FetchFailedError('encoding', `Unsupported Content-Encoding: ${coding.slice(0, 40)}`, { subject: coding.slice(0, 40) });
  }
}

/** Decoders for a Content-Encoding header, in the order to apply them (the last coding first). */
export function createDecoders(contentEncoding: string | undefined): Transform[] {
  if (!contentEncoding) return [];
  const codings = contentEncoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > 3) throw new FetchFailedError('encoding', 'Too many content codings');
  return codings.reverse().map(createDecoder);
}

export interface ReadBodyOptions {
  /** Cap on the decoded bytes, and on the bytes received. */
  maxBytes: number;
  signal: AbortSignal;
}

function tooLarge(maxBytes: number): FetchFailedError {
  return new FetchFailedError('too-large', `The response body is larger than ${maxBytes} bytes`);
}

/**
 * The decoded body of `response`. Rejects with 'too-large' as soon as the decoded (or received)
 * byte count passes maxBytes, with 'decode' for corrupt compressed data, with 'truncated' when the
 * body ends early, and with the signal's reason when it is aborted. On any failure every stream,
 * and so the socket, is destroyed.
 */
export function readBody(response: IncomingMessage, decoders: Transform[], options: ReadBodyOptions): Promise<Buffer> {
  const { maxBytes, signal } = options;
  return new Promise<Buffer>((resolve, reject) => {
    const streams: Readable[] = [response, ...decoders];
    const output = streams[streams.length - 1]!;
    const chunks: Buffer[] = [];
    let received = 0;
    let decoded = 0;
    let settled = false;

    const finish = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) {
        resolve(Buffer.concat(chunks, decoded));
        return;
      }
      for (const stream of streams) stream.destroy();
      reject(error);
    };
    const onAbort = (): void => finish(signal.reason);
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });

    response.on('error', (error) =>
      finish(new FetchFailedError('truncated', 'The connection failed while reading the body', { cause: error })),
    );
    response.on('close', () => {
      if (!response.complete) {
        finish(new FetchFailedError('truncated', 'The connection closed before the body was complete'));
      }
    });
    for (const decoder of decoders) {
      decoder.on('error', (error) =>
        finish(new FetchFailedError('decode', 'The response body could not be decompressed', { cause: error })),
      );
    }
    if (decoders.length > 0) {
      // The compressed bytes are capped too: empty gzip members would otherwise stream forever.
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) finish(tooLarge(maxBytes));
      });
    }
    output.on('data', (chunk: Buffer) => {
      if (settled) return;
      decoded += chunk.length;
      if (decoded > maxBytes) {
        finish(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    output.on('end', () => finish());
    for (let i = 0; i + 1 < streams.length; i++) streams[i]!.pipe(streams[i + 1] as unknown as Writable);
  });
}
