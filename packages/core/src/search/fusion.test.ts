import { describe, expect, it } from 'vitest';
import { reciprocalRankFusion } from './fusion.ts';

const hits = (...ids: string[]) => ids.map((id, i) => ({ id, score: 10 - i }));

describe('reciprocalRankFusion', () => {
  it('sums 1 / (k + rank) and divides by the maximum', () => {
    const fused = reciprocalRankFusion([hits('a', 'b', 'c'), hits('b', 'a')], { k: 60 });
    const max = 2 / 61;
    const a = (1 / 61 + 1 / 62) / max;
    const c = 1 / 63 / max;
    expect(fused.map((h) => h.id)).toEqual(['a', 'b', 'c']); // a and b tie, broken by id
    expect(fused[0]!.score).toBeCloseTo(a, 12);
    expect(fused[1]!.score).toBeCloseTo(a, 12);
    expect(fused[2]!.score).toBeCloseTo(c, 12);
  });

  it('gives 1 to a document ranked first everywhere and keeps scores in 0..1', () => {
    const fused = reciprocalRankFusion([hits('a', 'b'), hits('a', 'c'), hits('a')]);
    expect(fused[0]).toEqual({ id: 'a', score: 1 });
    for (const h of fused) expect(h.score).toBeGreaterThan(0);
    for (const h of fused) expect(h.score).toBeLessThanOrEqual(1);
  });

  it('honours weights, k and limit', () => {
    const fused = reciprocalRankFusion([hits('a', 'b'), hits('b', 'a')], { k: 0, weights: [1, 3], limit: 1 });
    expect(fused).toHaveLength(1);
    expect(fused[0]!.id).toBe('b');
    expect(fused[0]!.score).toBeCloseTo((1 / 2 + 3) / 4, 12);
    expect(() => reciprocalRankFusion([hits('a')], { weights: [1, 2] })).toThrow(RangeError);
  });

  it('handles empty input', () => {
    expect(reciprocalRankFusion([])).toEqual([]);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
  });
});
