/**
 * POST /ingest/file under fuzzing: real files (PDFs from two generators and Ghostscript, a Word
 * document) truncated, with bytes overwritten, inserted or removed, sent under every supported
 * type. A broken file gets a 4xx in the one error shape (422 for a file that cannot be read),
 * never a 5xx; the server keeps answering, and a good file after the run is ingested.
 * KB_FUZZ_RUNS cases (default 24); KB_FUZZ_SEED=<seed> replays a run.
 */
import fc from 'fast-check';
import { ghostscriptPdf, pdfKitPdf, pdfLibPdf, wordDocx } from '@kb/content/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';

const RUNS = Number(process.env.KB_FUZZ_RUNS ?? 24);
const SEED = Number(process.env.KB_FUZZ_SEED ?? Date.now() % 2_147_483_647);
const TYPES = ['application/pdf', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'text/html', 'text/markdown', 'text/plain', 'application/octet-stream'];

type Mutation = { kind: 'truncate'; at: number } | { kind: 'overwrite'; at: number; bytes: number[] } | { kind: 'insert'; at: number; bytes: number[] } | { kind: 'remove'; at: number; length: number };

/** `bytes` with one mutation applied at a relative position (0-1) of the file. */
function mutate(bytes: Uint8Array, mutation: Mutation): Uint8Array {
  const at = Math.floor(mutation.at * bytes.length);
  switch (mutation.kind) {
    case 'truncate':
      return bytes.slice(0, at);
    case 'overwrite': {
      const out = bytes.slice();
      mutation.bytes.forEach((b, i) => {
        if (at + i < out.length) out[at + i] = b;
      });
      return out;
    }
    case 'insert':
      return new Uint8Array([...bytes.subarray(0, at), ...mutation.bytes, ...bytes.subarray(at)]);
    case 'remove':
      return new Uint8Array([...bytes.subarray(0, at), ...bytes.subarray(at + mutation.length)]);
  }
}

const position = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const someBytes = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 64 });
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
  fc.record({ kind: fc.constant('overwrite' as const), at: position, bytes: someBytes }),
  fc.record({ kind: fc.constant('insert' as const), at: position, bytes: someBytes }),
  fc.record({ kind: fc.constant('remove' as const), at: position, length: fc.integer({ min: 1, max: 4096 }) }),
);

describe('POST /api/v1/ingest/file with truncated and mutated files', () => {
  let service: TestService;
  let key: string;
  let files: Array<{ name: string; bytes: Uint8Array }>;
  beforeAll(async () => {
    service = await startTestService('pglite');
    key = (await service.createKey()).key;
    files = [
      { name: 'pdf-lib.pdf', bytes: await pdfLibPdf(4) },
      { name: 'pdfkit.pdf', bytes: await pdfKitPdf(3) },
      { name: 'ghostscript.pdf', bytes: ghostscriptPdf() },
      { name: 'word.docx', bytes: await wordDocx() },
    ];
  });
  afterAll(() => service?.close());

  it('answers every mutated file with a 200 or a 4xx in the error shape, never a 5xx', async () => {
    console.log(`ingest-files fuzz seed ${SEED} (KB_FUZZ_SEED=${SEED} replays it)`);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 3 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.constantFrom(...TYPES), fc.boolean(), async (which, mutations, type, named) => {
        const file = files[which]!;
        const bytes = mutations.reduce(mutate, file.bytes);
        const query = new URLSearchParams({ namespace: 'user_docs', title: 'Fuzzed', slug: `fuzz-${which}` });
        if (named) query.set('filename', file.name);
        const res = await service.api(`/api/v1/ingest/file?${query}`, { method: 'POST', key, body: bytes, headers: { 'content-type': type } });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const what = `${file.name} ${JSON.stringify(mutations)} as ${type} -> ${res.status}`;
        expect([200, 400, 413, 415, 422], what).toContain(res.status);
        const body = await json(res);
        if (res.status === 200) expect(body, what).toMatchObject({ documentId: expect.any(String), skipped: expect.any(Boolean), format: expect.any(String) });
        else expect(body, what).toEqual({ message: expect.any(String), code: expect.any(String), requestId: expect.any(String) });
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(`ingest-files fuzz statuses: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(' ')}`);
    // The server and its worker still serve: a good file is ingested.
    const res = await service.api('/api/v1/ingest/file?namespace=user_docs&filename=after.pdf', { method: 'POST', key, body: files[0]!.bytes, headers: { 'content-type': 'application/pdf' } });
    expect(res.status).toBe(200);
  }, 600_000);
});
