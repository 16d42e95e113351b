import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { isAppError } from '@kb/core';
import { describe, expect, it } from 'vitest';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_OBJECT_MEMBERS, parseJsonObject, readBody, withholdContinue } from './body.ts';

/** A request body the test writes to, with the headers readBody reads. */
function fakeRequest(headers: Record<string, string> = {}): { req: IncomingMessage; body: PassThrough } {
  const body = new PassThrough();
  return { req: Object.assign(body, { headers, complete: false }) as unknown as IncomingMessage, body };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isAppError(error) && error.code === 'PAYLOAD_TOO_LARGE', String(error)).toBe(true);
  return (error as Error).message;
}

const chunk = (n: number) => Buffer.alloc(n, 'a');
/** A time bound past the test's timeout: a test using it passes only if the time bound plays no part. */
const NEVER_MS = 10 * 60_000;

describe('readBody', () => {
  it('returns a body within the limit', async () => {
    const { req, body } = fakeRequest();
    const read = readBody(req, 10);
    body.end(chunk(10));
    expect((await read).length).toBe(10);
  });

  it('reads the rest of a streamed body over the limit before refusing it, so the client can read the answer', async () => {
    const { req, body } = fakeRequest();
    const read = readBody(req, 10, { discardMaxBytes: 1000, discardMaxMs: NEVER_MS });
    body.write(chunk(8));
    body.write(chunk(8));
    let settled = false;
    void read.catch(() => {}).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false); // still reading what the client sends
    body.end(chunk(500));
    expect(await refusal(read)).toBe('Request body is larger than the limit of 10 bytes');
    expect(body.readableEnded).toBe(true);
  });

  it('reads the rest of a declared body over the limit, within the bound', async () => {
    const { req, body } = fakeRequest({ 'content-length': '300' });
    const read = readBody(req, 10, { discardMaxBytes: 1000, discardMaxMs: NEVER_MS });
    body.end(chunk(300));
    await refusal(read);
    expect(body.readableEnded).toBe(true);
  });

  it('stops reading past the byte bound', async () => {
    const { req, body } = fakeRequest();
    const read = readBody(req, 10, { discardMaxBytes: 100, discardMaxMs: NEVER_MS });
    let settled = false;
    void read.catch(() => {}).finally(() => (settled = true));
    let sent = 0;
    // 10 bytes at a time, each read before the next: 10 for the body, then 100 to discard.
    while (!settled && sent < 1000) {
      body.write(chunk(10));
      sent += 10;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await refusal(read);
    expect(sent).toBeGreaterThan(100);
    expect(sent).toBeLessThanOrEqual(130);
    expect(body.readableEnded).toBe(false);
    expect(body.isPaused()).toBe(true);
  });

  it('stops reading past the time bound', async () => {
    const { req, body } = fakeRequest();
    const read = readBody(req, 10, { discardMaxBytes: 1000, discardMaxMs: 50 });
    body.write(chunk(20)); // over the limit, then nothing more
    await refusal(read);
    expect(body.readableEnded).toBe(false);
  });

  it('refuses at once a declared body past the bound, or one whose client waits to be told to send it', async () => {
    // Nothing is ever sent: only an answer that does not wait for the body passes.
    const patient = { discardMaxBytes: 100, discardMaxMs: NEVER_MS };
    const past = fakeRequest({ 'content-length': '1000' });
    await refusal(readBody(past.req, 10, patient));

    const waiting = fakeRequest({ 'content-length': '20', expect: '100-continue' });
    withholdContinue(waiting.req);
    await refusal(readBody(waiting.req, 10, patient));
  });
});

describe('the shape of JSON text', () => {
  const object = (members: number) => `{${Array.from({ length: members }, (_, i) => `"k${i}":{"a":1,"b":[1,2]}`).join(',')}}`;

  it('allows nesting up to the limit and objects of up to the limit of members', () => {
    expect(jsonShapeProblem(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`)).toBeUndefined();
    expect(jsonShapeProblem(object(MAX_JSON_OBJECT_MEMBERS))).toBeUndefined();
    // Members are counted per object: many objects of a few members each are fine.
    expect(jsonShapeProblem(`[${Array.from({ length: 3 * MAX_JSON_OBJECT_MEMBERS }, () => '{"a":1,"b":2}').join(',')}]`)).toBeUndefined();
    expect(jsonShapeProblem(`[${'0,'.repeat(100_000)}0]`)).toBeUndefined();
  });

  it('names what is too big: the depth, or an object too wide at any level', () => {
    expect(jsonShapeProblem(`${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`)).toBe(`nested more than ${MAX_JSON_DEPTH} levels deep`);
    expect(jsonShapeProblem(object(MAX_JSON_OBJECT_MEMBERS + 1))).toBe(`holding an object of more than ${MAX_JSON_OBJECT_MEMBERS} members`);
    expect(jsonShapeProblem(`{"metadata":${object(MAX_JSON_OBJECT_MEMBERS + 1)}}`)).toBe(`holding an object of more than ${MAX_JSON_OBJECT_MEMBERS} members`);
  });

  it('does not count what is inside strings', () => {
    const text = JSON.stringify({ a: '{'.repeat(1000) + ':'.repeat(50_000) + '\\"[' });
    expect(jsonShapeProblem(text)).toBeUndefined();
  });
});

describe('a JSON object body', () => {
  it('parses an object, an empty body as an empty one, and refuses any other value in one sentence', () => {
    expect(parseJsonObject(Buffer.from('{"a":1}'))).toEqual({ a: 1 });
    expect(parseJsonObject(Buffer.alloc(0))).toEqual({});
    for (const [text, kind] of [['[1]', 'an array'], ['"x"', 'a string'], ['1', 'a number'], ['null', 'null'], ['false', 'a boolean']]) {
      expect(() => parseJsonObject(Buffer.from(text!))).toThrow(`Expected a JSON object as the body, not ${kind}`);
    }
    expect(() => parseJsonObject(Buffer.from('{"a":'))).toThrow(/^Malformed JSON body/);
    // Text that only starts like a scalar is malformed JSON, not that scalar.
    for (const text of ['not json', 'true-ish', '-x', '12 apples']) expect(() => parseJsonObject(Buffer.from(text))).toThrow(/^Malformed JSON body/);
    expect(() => parseJsonObject(Buffer.from(' -1.5e3\n'))).toThrow('Expected a JSON object as the body, not a number');
  });
});
