import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from './errors.ts';
import { operationsFromSpecText, stopSpecWorker } from './off-thread.ts';

const spec = {
  openapi: '3.0.0',
  info: { title: 'T', version: '1' },
  paths: { '/a': { get: { operationId: 'getA', responses: { '200': { description: 'ok' } } } } },
};

describe('operationsFromSpecText (worker thread)', () => {
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
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const result = await operationsFromSpecText(text, 'yaml');
    clearInterval(timer);
    expect(result.operations).toHaveLength(3000);
    expect(ticks).toBeGreaterThan(5);
  });

  it('keeps working after a spec exhausted the worker, and serves requests in turn', async () => {
    const many = await Promise.all([1, 2, 3].map(() => operationsFromSpecText(JSON.stringify(spec), 'json')));
    expect(many.map((r) => r.operations.length)).toEqual([1, 1, 1]);
    await stopSpecWorker();
    const again = await operationsFromSpecText(JSON.stringify(spec), 'json');
    expect(again.operations[0]?.operationId).toBe('getA');
  });
});
