import { afterAll, describe, expect, it, vi } from 'vitest';
import { InvalidSpecError } from '../openapi/errors.ts';
import { prepareDocuments } from '../prepare.ts';
import { runTask, stopWorkerPool, TaskPool } from './pool.ts';

afterAll(() => stopWorkerPool());

const operationsFromSpecText = (text: string, format: 'json' | 'yaml') => runTask('parseSpec', { text, format });

const spec = {
  openapi: '3.0.0',
  info: { title: 'T', version: '1' },
  paths: { '/a': { get: { operationId: 'getA', responses: { '200': { description: 'ok' } } } } },
};

describe("runTask('parseSpec') (worker thread)", () => {
  it('renders the same operations as in-process rendering', async () => {
    const result = await operationsFromSpecText(JSON.stringify(spec), 'json');
    expect(result.operations.map((o) => o.operationId)).toEqual(['getA']);
    expect(result.skipped).toBe(0);
  });

  it('reports invalid specs as InvalidSpecError', async () => {
    await expect(operationsFromSpecText('{"hello": 1}', 'json')).rejects.toBeInstanceOf(InvalidSpecError);
    await expect(operationsFromSpecText('a: &a [*a', 'yaml')).rejects.toBeInstanceOf(InvalidSpecError);
  });

  it('keeps the calling thread responsive while a large spec is parsed', async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 3000; i++) {
      paths[`/p${i}`] = { get: { operationId: `op${i}`, summary: `Operation ${i} `.repeat(20), responses: { '200': { description: 'ok' } } } };
    }
    const { stringify } = await import('yaml');
    const text = stringify({ ...spec, paths });
    // Parsed on this thread, the spec would keep the event loop from turning until it was done;
    // counted in turns, not in timer firings per millisecond, which a busy machine does not keep to.
    let turns = 0;
    let parsing = true;
    const turn = () => {
      if (!parsing) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    const result = await operationsFromSpecText(text, 'yaml');
    parsing = false;
    expect(result.operations).toHaveLength(3000);
    expect(turns).toBeGreaterThanOrEqual(10);
  });

  it('keeps working after a spec exhausted the worker, and serves requests in turn', async () => {
    const many = await Promise.all([1, 2, 3].map(() => operationsFromSpecText(JSON.stringify(spec), 'json')));
    expect(many.map((r) => r.operations.length)).toEqual([1, 1, 1]);
    await stopWorkerPool();
    const again = await operationsFromSpecText(JSON.stringify(spec), 'json');
    expect(again.operations[0]?.operationId).toBe('getA');
  });
});

describe("runTask('prepareDocuments') (worker thread)", () => {
  const documents = [
    { title: 'Guide', content: '# Guide\n\n## Install\n\nRun the installer.\n\n## Use\n\nOpen the app and pick a file.\n' },
    { title: 'Empty', content: '' },
    { title: 'Repeats', content: '# Repeats\n\nSame line.\n\n# Repeats\n\nSame line.\n' },
  ];

  it('splits and embeds exactly as on the calling thread, the vectors moved as one Float32Array', async () => {
    const here = prepareDocuments(documents, 64);
    const there = await runTask('prepareDocuments', { documents, dimension: 64 });
    expect(there.vectors).toBeInstanceOf(Float32Array);
    expect(there.documents).toEqual(here.documents);
    expect(Array.from(there.vectors)).toEqual(Array.from(here.vectors));
    expect(there.vectors.length).toBe(here.documents.reduce((n, d) => n + d.children.length, 0) * 64);
    expect(there.vectors.length).toBeGreaterThan(0);
  });

  it('only splits for a null dimension', async () => {
    const there = await runTask('prepareDocuments', { documents, dimension: null });
    expect(there.documents).toEqual(prepareDocuments(documents, null).documents);
    expect(there.vectors).toHaveLength(0);
  });
});

describe('TaskPool', () => {
  it('fails what a worker that ran out of heap had queued, each as its task says, and starts a fresh worker', async () => {
    const pool = new TaskPool({ heapMb: 48 });
    const small = JSON.stringify(spec);
    try {
      // The small heap is enough to start the worker and run small tasks ...
      expect((await pool.run('parseSpec', { text: small, format: 'json' })).operations).toHaveLength(1);
      // ... but not to parse a 12 MB spec.
      const paths: Record<string, unknown> = {};
      for (let i = 0; i < 30_000; i++) {
        paths[`/p${i}`] = { get: { operationId: `op${i}`, summary: `Operation ${i} `.repeat(20), responses: { '200': { description: 'ok' } } } };
      }
      const large = pool.run('parseSpec', { text: JSON.stringify({ ...spec, paths }), format: 'json' });
      const queuedSpec = pool.run('parseSpec', { text: small, format: 'json' });
      const queuedPreparation = pool.run('prepareDocuments', { documents: [{ title: 'T', content: '# T\n\ntext' }], dimension: 64 });
      await expect(large).rejects.toThrow(InvalidSpecError);
      await expect(large).rejects.toThrow(/within the service's limits/);
      await expect(queuedSpec).rejects.toThrow(InvalidSpecError);
      const preparation = await queuedPreparation.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(preparation).toBeInstanceOf(Error);
      expect(preparation).not.toBeInstanceOf(InvalidSpecError);
      expect((preparation as Error).message).toMatch(/^Preparing documents failed: the worker stopped/);
      const again = await pool.run('parseSpec', { text: small, format: 'json' });
      expect(again.operations[0]?.operationId).toBe('getA');
    } finally {
      await pool.stop();
    }
  });

  it('serial: a task that takes the worker down fails alone, the one queued behind it runs in a fresh worker', async () => {
    const pool = new TaskPool({ heapMb: 48, serial: true });
    const small = JSON.stringify(spec);
    try {
      const paths: Record<string, unknown> = {};
      for (let i = 0; i < 30_000; i++) {
        paths[`/p${i}`] = { get: { operationId: `op${i}`, summary: `Operation ${i} `.repeat(20), responses: { '200': { description: 'ok' } } } };
      }
      const large = pool.run('parseSpec', { text: JSON.stringify({ ...spec, paths }), format: 'json' });
      const queued = pool.run('parseSpec', { text: small, format: 'json' });
      await expect(large).rejects.toThrow(/within the service's limits/);
      expect((await queued).operations[0]?.operationId).toBe('getA');
    } finally {
      await pool.stop();
    }
  });

  it('serial with a time limit: a task past it is stopped with the reason, and the pool goes on', async () => {
    const pool = new TaskPool({ serial: true, timeoutMs: 1 });
    try {
      await expect(pool.run('parseSpec', { text: JSON.stringify(spec), format: 'json' })).rejects.toThrow(/no result within 0 s/);
      expect(pool.running).toBe(false);
      await expect(pool.run('parseSpec', { text: JSON.stringify(spec), format: 'json' })).rejects.toThrow(InvalidSpecError);
    } finally {
      await pool.stop();
    }
  });

  it('starts its worker with the first task and stops it once idle, starting a new one for the next task', async () => {
    const pool = new TaskPool({ idleMs: 200 });
    const small = JSON.stringify(spec);
    try {
      expect(pool.running).toBe(false);
      const first = pool.run('parseSpec', { text: small, format: 'json' });
      expect(pool.running).toBe(true);
      await first;
      // Tasks that keep coming keep the worker.
      await pool.run('parseSpec', { text: small, format: 'json' });
      expect(pool.running).toBe(true);
      await vi.waitFor(() => expect(pool.running).toBe(false), { timeout: 5_000, interval: 50 });
      expect((await pool.run('parseSpec', { text: small, format: 'json' })).operations).toHaveLength(1);
      expect(pool.running).toBe(true);
    } finally {
      await pool.stop();
    }
  });

  it('fails the tasks it had not answered when it is stopped, and runs the next one in a new worker', async () => {
    const pool = new TaskPool();
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 3_000; i++) paths[`/p${i}`] = { get: { operationId: `op${i}`, responses: { '200': { description: 'ok' } } } };
    try {
      const outcome = pool.run('parseSpec', { text: JSON.stringify({ ...spec, paths }), format: 'json' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      await pool.stop();
      expect(await outcome).toBeInstanceOf(InvalidSpecError);
      expect(String(await outcome)).toMatch(/the worker was stopped/);
      expect((await pool.run('parseSpec', { text: JSON.stringify(spec), format: 'json' })).operations).toHaveLength(1);
    } finally {
      await pool.stop();
    }
  });
});
