import { describe, expect, it } from 'vitest';
import { WritePipeline } from './pipeline.ts';

const deferred = () => {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe('WritePipeline', () => {
  it('lets `limit` writes run and waits for the oldest beyond that', async () => {
    const pipeline = new WritePipeline(2);
    const writes = [deferred(), deferred(), deferred()];
    await pipeline.push(writes[0]!.promise);
    await pipeline.push(writes[1]!.promise);
    let third = false;
    const pushing = pipeline.push(writes[2]!.promise).then(() => (third = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(third).toBe(false);
    writes[0]!.resolve();
    await pushing;
    expect(third).toBe(true);
    writes[1]!.resolve();
    writes[2]!.resolve();
    await pipeline.drain();
  });

  it('drain rejects with a failure only once every write has ended', async () => {
    const pipeline = new WritePipeline(3);
    const slow = deferred();
    let slowDone = false;
    await pipeline.push(Promise.reject(new Error('write failed')));
    await pipeline.push(slow.promise.then(() => (slowDone = true)));
    setTimeout(() => slow.resolve(), 20);
    await expect(pipeline.drain()).rejects.toThrow('write failed');
    expect(slowDone).toBe(true);
  });

  it('settle waits without throwing', async () => {
    const pipeline = new WritePipeline(1);
    await pipeline.push(Promise.reject(new Error('no')));
    await expect(pipeline.settle()).resolves.toBeUndefined();
  });
});
