import { describe, expect, it } from 'vitest';
import { Bm25Index, topKIndices } from './bm25.ts';

const docs = [
  { id: 'a', text: 'apple banana' },
  { id: 'b', text: 'apple cherry' },
  { id: 'c', text: 'apple banana cherry durian elderberry fig grape' },
  { id: 'd', text: 'kiwi' },
];

describe('Bm25Index', () => {
  it('uses Lucene’s IDF: rarer terms weigh more', () => {
    const index = Bm25Index.build(docs);
    expect(index.size).toBe(4);
    expect(index.documentFrequency('appl')).toBe(3); // analysed (stemmed) term
    expect(index.idf('appl')).toBeCloseTo(Math.log(1 + 1.5 / 3.5), 12);
    expect(index.idf('kiwi')).toBeCloseTo(Math.log(1 + 3.5 / 1.5), 12);
    expect(index.idf('kiwi')).toBeGreaterThan(index.idf('cherri'));
    expect(index.idf('cherri')).toBeGreaterThan(index.idf('appl'));
  });

  it('computes the textbook score', () => {
    const index = Bm25Index.build(docs, { k1: 1.2, b: 0.75 });
    // doc a: length 2; avgdl = (2 + 2 + 7 + 1) / 4 = 3
    const idf = Math.log(1 + (4 - 2 + 0.5) / (2 + 0.5)); // banana is in 2 documents
    const expected = (idf * 1 * 2.2) / (1 + 1.2 * (1 - 0.75 + (0.75 * 2) / 3));
    const hit = index.search('banana', 10).find((h) => h.id === 'a');
    expect(hit?.score).toBeCloseTo(expected, 10);
  });

  it('ranks the matching rare term first and omits non-matching documents', () => {
    const index = Bm25Index.build(docs);
    const hits = index.search('cherry apple', 10);
    expect(hits.map((h) => h.id)).toEqual(['b', 'c', 'a']);
    expect(hits.some((h) => h.id === 'd')).toBe(false);
    expect(index.search('nothing here', 10)).toEqual([]);
    expect(index.search('apple', 1)).toHaveLength(1);
  });

  it('normalises for length with b and not without', () => {
    // a and c both contain banana once; c is much longer
    const withB = Bm25Index.build(docs, { b: 0.75 }).search('banana', 10);
    expect(withB.map((h) => h.id)).toEqual(['a', 'c']);
    expect(withB[0]!.score).toBeGreaterThan(withB[1]!.score);
    const noB = Bm25Index.build(docs, { b: 0 }).search('banana', 10);
    expect(noB[0]!.score).toBeCloseTo(noB[1]!.score, 12);
  });

  it('saturates term frequency with k1', () => {
    const index = Bm25Index.build([
      { id: 'once', text: 'zebra x y z' },
      { id: 'twice', text: 'zebra zebra y z' },
      { id: 'other', text: 'lion' },
    ]);
    const [first, second] = index.search('zebra', 10);
    expect(first!.id).toBe('twice');
    expect(first!.score / second!.score).toBeLessThan(2);
    expect(first!.score / second!.score).toBeGreaterThan(1);
  });

  it('counts repeated query words and validates parameters', () => {
    const index = Bm25Index.build(docs);
    const once = index.search('banana', 10)[0]!.score;
    const twice = index.search('banana banana', 10)[0]!.score;
    expect(twice).toBeCloseTo(2 * once, 12);
    expect(() => new Bm25Index({ b: 2 })).toThrow(RangeError);
    expect(() => new Bm25Index({ k1: -1 })).toThrow(RangeError);
  });

  it('exposes document terms for feedback', () => {
    const index = Bm25Index.build(docs);
    expect(new Map(index.docTerms(0))).toEqual(new Map([['appl', 1], ['banana', 1]]));
    expect(index.docLength(2)).toBe(7);
    expect(index.docId(3)).toBe('d');
  });
});

describe('topKIndices', () => {
  it('returns the k largest positive values, ties by lower index', () => {
    expect(topKIndices([0.5, 2, 0, 2, 1, -1], 3)).toEqual([1, 3, 4]);
    expect(topKIndices([0.5, 2, 0, 2, 1, -1], 10)).toEqual([1, 3, 4, 0]);
    expect(topKIndices([-3, -1, -2], 2, -Infinity)).toEqual([1, 2]);
    expect(topKIndices([1, 2], 0)).toEqual([]);
  });
});
