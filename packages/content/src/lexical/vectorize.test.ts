import { describe, expect, it } from 'vitest';
import { LexicalVectorizer } from './vectorize.ts';

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: ArrayLike<number>) => Math.sqrt(dot(a, a));

describe('LexicalVectorizer', () => {
  it('has the configured dimension in its vectors and model name', () => {
    const v = new LexicalVectorizer();
    expect(v.dimension).toBe(1024);
    expect(v.model).toBe('local-lexical-v1-1024');
    const small = new LexicalVectorizer({ dimension: 256 });
    expect(small.model).toBe('local-lexical-v1-256');
    expect(small.vector('hello world')).toHaveLength(256);
    expect(() => new LexicalVectorizer({ dimension: 3 })).toThrow(RangeError);
    expect(() => new LexicalVectorizer({ dimension: 100.5 })).toThrow(RangeError);
  });

  it('is deterministic across calls and instances', () => {
    const texts = ['Vitamin D deficiency and bone density', 'Protein folding in the cell'];
    const a = texts.map((t) => new LexicalVectorizer().vector(t));
    const one = new LexicalVectorizer();
    const b = texts.map((t) => one.vector(t));
    expect(a).toEqual(b);
    expect(one.vector(texts[0]!)).toEqual(one.vector(texts[0]!));
  });

  it('returns unit vectors, also for empty and stop-word-only texts', () => {
    const v = new LexicalVectorizer();
    for (const text of ['A long text about ribosomes and translation.', '', 'the and of', '東京大学', 'ribosomes']) {
      expect(norm(v.vector(text))).toBeCloseTo(1, 5);
    }
  });

  it('puts texts sharing words closer than unrelated ones', () => {
    const v = new LexicalVectorizer();
    const query = v.vector('insulin resistance in obese patients');
    const [related, paraphrase, unrelated] = [
      'Obesity is associated with insulin resistance; obese patients show impaired insulin signalling.',
      'Insulin resistance was measured in patients.',
      'Volcanic eruptions alter the chemistry of the upper atmosphere.',
    ].map((t) => v.vector(t));
    expect(dot(query, related!)).toBeGreaterThan(0.3);
    expect(dot(query, related!)).toBeGreaterThan(dot(query, unrelated!) + 0.2);
    // a one-line document scores lower in absolute terms (the length pivot), but still above unrelated text
    expect(dot(query, paraphrase!)).toBeGreaterThan(dot(query, unrelated!) + 0.1);
    expect(Math.abs(dot(query, unrelated!))).toBeLessThan(0.1);
    // stemming: inflected forms match
    const q2 = v.vector('running mice');
    const d2 = v.vector('Mice were running on wheels; the running mice were compared.');
    const d3 = v.vector('Cats sleep on sofas.');
    expect(dot(q2, d2)).toBeGreaterThan(dot(q2, d3) + 0.1);
  });
});
