import { LexicalVectorizer } from '@kb/content';
import { cpuStopwatch } from '@kb/vitest-config/cpu-time';
import { describe, expect, it } from 'vitest';
import { LocalEmbedder } from './local.ts';

describe('LocalEmbedder', () => {
  it("embeds documents and queries as the content package's lexical vectors, in order", async () => {
    const e = new LocalEmbedder({ dimension: 256 });
    expect(e.model).toBe('local-lexical-v1-256');
    expect(e.dimension).toBe(256);
    expect(new LocalEmbedder().model).toBe('local-lexical-v1-1024');
    expect(() => new LocalEmbedder({ dimension: 3 })).toThrow(RangeError);
    const texts = ['Vitamin D deficiency and bone density', '', 'Protein folding in the cell'];
    const expected = texts.map((t) => Array.from(new LexicalVectorizer({ dimension: 256 }).vector(t)));
    expect(await e.embed(texts, 'document')).toEqual(expected);
    expect(await e.embed(texts, 'query')).toEqual(expected);
    expect(Array.from(e.embedOne(texts[0]!, 'query'))).toEqual(expected[0]);
    const vectors = await e.embedVectors(texts, 'document');
    expect(vectors.every((vector) => vector instanceof Float32Array)).toBe(true);
    expect(vectors.map((vector) => Array.from(vector))).toEqual(expected);
  });

  it('embeds a few thousand abstracts quickly', async () => {
    const e = new LocalEmbedder();
    const words = 'cell protein gene expression patient cancer therapy mouse model receptor signalling pathway tumour immune response'.split(' ');
    const texts = Array.from({ length: 2000 }, (_, i) => Array.from({ length: 200 }, (_, j) => words[(i * 7 + j * 13) % words.length]).join(' '));
    // CPU time, not the clock: other processes on the machine do not count.
    const cpu = cpuStopwatch();
    const vectors = await e.embed(texts, 'document');
    expect(vectors).toHaveLength(2000);
    expect(cpu()).toBeLessThan(5000);
  });

  it('honours an abort signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(new LocalEmbedder().embed(['x'], 'query', controller.signal)).rejects.toThrow();
    await expect(new LocalEmbedder().embedVectors(['x'], 'document', controller.signal)).rejects.toThrow();
  });
});
