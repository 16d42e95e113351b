import { describe, expect, it } from 'vitest';
import {
  analyseText,
  CandidateAnalysisCache,
  HYBRID_DEFAULTS,
  hybridQueryTokens,
  hybridRank,
  lexicalQueryText,
  MAX_LEXICAL_QUERY_WORDS,
  type HybridCandidate,
  type HybridStatistics,
} from './hybrid.ts';

/** Statistics of a collection of `chunks` chunks with the given word frequencies. */
function statistics(frequencies: Record<string, number>, chunks = 1000, documents = chunks): HybridStatistics {
  return { chunks, documents, averageTokenCount: 10, frequency: (word) => frequencies[word] };
}

const candidate = (id: string, text: string, extra: Partial<HybridCandidate> = {}): HybridCandidate => ({
  id,
  documentId: id,
  text,
  tokenCount: text.split(/\s+/).length,
  ...extra,
});

describe('hybridQueryTokens', () => {
  it('lists the distinct non-stop-word tokens with the parts of letter-digit tokens', () => {
    expect(hybridQueryTokens('The IL6 level of IL-6 in the cells, cell counts')).toEqual(['il6', 'il', '6', 'level', 'cells', 'cell', 'counts']);
    expect(hybridQueryTokens('the of and')).toEqual([]);
  });
});

describe('hybridRank', () => {
  it('ranks by BM25 with the index frequencies as IDF', () => {
    const stats = statistics({ vitamin: 5, bone: 400 });
    const ranked = hybridRank('vitamin bone', [candidate('a', 'bone bone density'), candidate('b', 'vitamin intake'), candidate('c', 'unrelated text')], stats);
    expect(ranked.map((h) => h.id)).toEqual(['b', 'a', 'c']);
    expect(ranked[0]!.score).toBeCloseTo(HYBRID_DEFAULTS.weights.chunk + HYBRID_DEFAULTS.weights.document, 12);
    expect(ranked[2]!.score).toBe(0);
  });

  it('meets letter-digit tokens and their hyphenated spelling', () => {
    const stats = statistics({ il6: 3, il: 50, 6: 200, level: 300 });
    const ranked = hybridRank('IL6 levels', [candidate('a', 'serum level of IL-6'), candidate('b', 'serum level of IL-2')], stats);
    expect(ranked.map((h) => h.id)).toEqual(['a', 'b']);
  });

  it('gives no weight to words the index ignores', () => {
    // "against" is no Lucene stop word, but an index that ignores it reports no frequency for it.
    const stats = statistics({ vaccine: 20 });
    const ranked = hybridRank('against vaccine', [candidate('a', 'against against against'), candidate('b', 'vaccine trial')], stats);
    expect(ranked[0]!.id).toBe('b');
    expect(ranked.find((h) => h.id === 'a')!.score).toBe(0);
  });

  it('lets a chunk share the evidence of its document', () => {
    const stats = statistics({ insulin: 10, receptor: 10 }, 1000, 500);
    const candidates = [
      candidate('a1', 'insulin levels in mice', { documentId: 'a' }),
      candidate('a2', 'receptor levels in young mice', { documentId: 'a' }),
      candidate('b1', 'insulin levels in rats', { documentId: 'b' }),
    ];
    const ranked = hybridRank('insulin receptor', candidates, stats);
    // a1 and b1 match equally well on their own; a1's document also holds "receptor".
    expect(ranked.map((h) => h.id)).toEqual(['a1', 'a2', 'b1']);
    const chunkOnly = hybridRank('insulin receptor', candidates, stats, { weights: { chunk: 1, document: 0, vector: 0 } });
    expect(chunkOnly.map((h) => h.id)).toEqual(['a1', 'b1', 'a2']);
    expect(chunkOnly[0]!.score).toBe(chunkOnly[1]!.score);
  });

  it('adds the min-max normalised vector similarity', () => {
    const stats = statistics({ kinase: 10 });
    const candidates = [
      candidate('a', 'kinase activity', { vectorScore: 0.2 }),
      candidate('b', 'kinase activity', { vectorScore: 0.6 }),
      candidate('c', 'phosphorylation', { vectorScore: 0.4 }),
    ];
    const ranked = hybridRank('kinase', candidates, stats);
    const { chunk, document, vector } = HYBRID_DEFAULTS.weights;
    expect(ranked.map((h) => h.id)).toEqual(['b', 'a', 'c']);
    expect(ranked[0]!.score).toBeCloseTo(1, 12);
    expect(ranked[1]!.score).toBeCloseTo(chunk + document, 12);
    expect(ranked[2]!.score).toBeCloseTo(vector * 0.5, 12);
    const vectorOnly = hybridRank('kinase', candidates, stats, { weights: { chunk: 0, document: 0, vector: 2 } });
    expect(vectorOnly.map((h) => h.id)).toEqual(['b', 'c', 'a']);
    expect(vectorOnly.map((h) => h.score)).toEqual([1, expect.closeTo(0.5, 12), 0]);
  });

  it('keeps scores in 0..1, takes a repeated id once, and honours limit', () => {
    const stats = statistics({ alpha: 1, beta: 2 });
    const candidates = [candidate('a', 'alpha beta', { vectorScore: 0.9 }), candidate('a', 'nothing'), candidate('b', 'beta', { vectorScore: 0.9 })];
    const ranked = hybridRank('alpha beta', candidates, stats);
    expect(ranked.map((h) => h.id)).toEqual(['a', 'b']);
    for (const h of ranked) {
      expect(h.score).toBeGreaterThanOrEqual(0);
      expect(h.score).toBeLessThanOrEqual(1);
    }
    expect(hybridRank('alpha beta', candidates, stats, { limit: 1 })).toHaveLength(1);
    expect(hybridRank('alpha', [], stats)).toEqual([]);
  });

  it('normalises lengths with the collection mean, converted through the candidates', () => {
    // Same analysed content, but b is twice as long in the collection's unit as in analysed terms:
    // the ratio comes from all candidates, so b reads as the longer chunk and scores lower.
    const stats = statistics({ protein: 10 });
    const ranked = hybridRank('protein', [candidate('a', 'protein folding', { tokenCount: 2 }), candidate('b', 'protein folding stress response', { tokenCount: 40 })], stats, {
      weights: { chunk: 1, document: 0, vector: 0 },
    });
    expect(ranked.map((h) => h.id)).toEqual(['a', 'b']);
  });

  it('ranks the same with analyses kept from earlier rankings', () => {
    const stats = statistics({ insulin: 10, receptor: 30, level: 200, mice: 40 });
    const candidates = [
      candidate('a1', 'Insulin levels in mice; insulin receptors', { documentId: 'a', vectorScore: 0.3 }),
      candidate('a2', 'receptor levels in young mice', { documentId: 'a', vectorScore: 0.5 }),
      candidate('b1', 'insulin levels in rats', { documentId: 'b' }),
    ];
    const cache = new CandidateAnalysisCache(3);
    for (const query of ['insulin receptor', 'mice levels', 'insulin receptor']) {
      expect(hybridRank(query, candidates, stats, { cache })).toEqual(hybridRank(query, candidates, stats));
    }
    expect(cache.size).toBe(3);
    // A kept analysis whose text length differs from the candidate's is not used.
    const changed = [...candidates.slice(0, 2), candidate('b1', 'nothing of interest in here', { documentId: 'b' })];
    expect(hybridRank('insulin', changed, stats, { cache })).toEqual(hybridRank('insulin', changed, stats));
    // The least recently used is dropped beyond the capacity.
    const small = new CandidateAnalysisCache(2);
    expect(hybridRank('insulin', candidates, stats, { cache: small })).toEqual(hybridRank('insulin', candidates, stats));
    expect(small.size).toBe(2);
  });

  it('analyses a text into its sorted distinct terms and their counts', () => {
    const text = analyseText('The cells, the cell and IL6: cells again');
    expect(text.terms).toEqual(['6', 'again', 'cell', 'il', 'il6']);
    expect([...text.counts]).toEqual([1, 1, 3, 1, 1]);
    expect(text.length).toBe(7);
  });

  it('rejects invalid options', () => {
    const stats = statistics({});
    expect(() => hybridRank('x', [], stats, { weights: { chunk: 0, document: 0, vector: 0 } })).toThrow(RangeError);
    expect(() => hybridRank('x', [], stats, { weights: { chunk: -1, document: 1, vector: 1 } })).toThrow(RangeError);
    expect(() => hybridRank('x', [], stats, { b: 2 })).toThrow(RangeError);
    expect(() => hybridRank('x', [], stats, { k1: -1 })).toThrow(RangeError);
  });
});

describe('lexicalQueryText', () => {
  it('keeps a query up to its 64th distinct word, case-insensitively', () => {
    expect(lexicalQueryText('How do I purge the cache? purge it')).toBe('How do I purge the cache? purge it');
    const words = Array.from({ length: 1_600 }, (_, i) => `w${i}`);
    expect(lexicalQueryText(words.join(' '))).toBe(words.slice(0, MAX_LEXICAL_QUERY_WORDS).join(' '));
    // Repeats do not count.
    expect(lexicalQueryText(`${'Cache cache CACHE '.repeat(100)}end`)).toBe(`${'Cache cache CACHE '.repeat(100)}end`);
    expect(lexicalQueryText('a b c d', 2)).toBe('a b');
  });
});
