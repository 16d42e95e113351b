import { describe, expect, it } from 'vitest';
import { LocalEmbedder } from './local.ts';

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: readonly number[]) => Math.sqrt(dot(a, a));

describe('LocalEmbedder', () => {
  it('has the configured dimension in its vectors and model name', async () => {
    const e = new LocalEmbedder();
    expect(e.dimension).toBe(1024);
    expect(e.model).toBe('local-lexical-v1-1024');
    const small = new LocalEmbedder({ dimension: 256 });
    expect(small.model).toBe('local-lexical-v1-256');
    const [v] = await small.embed(['hello world'], 'document');
    expect(v).toHaveLength(256);
    expect(() => new LocalEmbedder({ dimension: 3 })).toThrow(RangeError);
    expect(() => new LocalEmbedder({ dimension: 100.5 })).toThrow(RangeError);
  });

  it('is deterministic across calls and instances', async () => {
    const texts = ['Vitamin D deficiency and bone density', 'Protein folding in the cell'];
    const a = await new LocalEmbedder().embed(texts, 'document');
    const b = await new LocalEmbedder().embed(texts, 'document');
    expect(a).toEqual(b);
    expect(await new LocalEmbedder().embed([texts[0]!], 'query')).toEqual(await new LocalEmbedder().embed([texts[0]!], 'query'));
  });

  it('returns unit vectors, also for empty and stop-word-only texts', async () => {
    const vectors = await new LocalEmbedder().embed(['A long text about ribosomes and translation.', '', 'the and of', '東京大学'], 'document');
    for (const v of vectors) expect(norm(v)).toBeCloseTo(1, 5);
    const queries = await new LocalEmbedder().embed(['ribosomes', ''], 'query');
    for (const v of queries) expect(norm(v)).toBeCloseTo(1, 5);
  });

  it('puts texts sharing words closer than unrelated ones', async () => {
    const e = new LocalEmbedder();
    const [query] = await e.embed(['insulin resistance in obese patients'], 'query');
    const [related, paraphrase, unrelated] = await e.embed(
      [
        'Obesity is associated with insulin resistance; obese patients show impaired insulin signalling.',
        'Insulin resistance was measured in patients.',
        'Volcanic eruptions alter the chemistry of the upper atmosphere.',
      ],
      'document',
    );
    expect(dot(query!, related!)).toBeGreaterThan(0.3);
    expect(dot(query!, related!)).toBeGreaterThan(dot(query!, unrelated!) + 0.2);
    // a one-line document scores lower in absolute terms (the length pivot), but still above unrelated text
    expect(dot(query!, paraphrase!)).toBeGreaterThan(dot(query!, unrelated!) + 0.1);
    expect(Math.abs(dot(query!, unrelated!))).toBeLessThan(0.1);
    // stemming: inflected forms match
    const [q2] = await e.embed(['running mice'], 'query');
    const [d2, d3] = await e.embed(['Mice were running on wheels; the running mice were compared.', 'Cats sleep on sofas.'], 'document');
    expect(dot(q2!, d2!)).toBeGreaterThan(dot(q2!, d3!) + 0.1);
  });

  it('embeds a few thousand abstracts quickly', async () => {
    const e = new LocalEmbedder();
    const words = 'cell protein gene expression patient cancer therapy mouse model receptor signalling pathway tumour immune response'.split(' ');
    const texts = Array.from({ length: 2000 }, (_, i) => Array.from({ length: 200 }, (_, j) => words[(i * 7 + j * 13) % words.length]).join(' '));
    const start = performance.now();
    const vectors = await e.embed(texts, 'document');
    expect(vectors).toHaveLength(2000);
    expect(performance.now() - start).toBeLessThan(5000);
  });

  it('honours an abort signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(new LocalEmbedder().embed(['x'], 'query', controller.signal)).rejects.toThrow();
  });
});
