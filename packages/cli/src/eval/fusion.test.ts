import { describe, expect, it } from 'vitest';
import { convexFusion, minMaxNormalize, reciprocalRankFusion } from './fusion.ts';

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

describe('convexFusion', () => {
  it('min-max normalises each list', () => {
    expect(minMaxNormalize([{ id: 'a', score: 5 }, { id: 'b', score: 3 }, { id: 'c', score: 1 }])).toEqual(
      new Map([
        ['a', 1],
        ['b', 0.5],
        ['c', 0],
      ]),
    );
    expect(minMaxNormalize([{ id: 'a', score: 0.2 }])).toEqual(new Map([['a', 1]]));
  });

  it('takes the weighted mean of normalised scores', () => {
    const lexical = [
      { id: 'a', score: 12 },
      { id: 'b', score: 8 },
      { id: 'c', score: 4 },
    ];
    const vector = [
      { id: 'b', score: 0.9 },
      { id: 'd', score: 0.5 },
      { id: 'a', score: 0.1 },
    ];
    const fused = convexFusion([lexical, vector], { weights: [3, 1] });
    const byId = new Map(fused.map((h) => [h.id, h.score]));
    expect(byId.get('a')).toBeCloseTo(0.75, 12); // 0.75 * 1 + 0.25 * 0
    expect(byId.get('b')).toBeCloseTo(0.75 * 0.5 + 0.25, 12);
    expect(byId.get('c')).toBeCloseTo(0, 12);
    expect(byId.get('d')).toBeCloseTo(0.25 * 0.5, 12);
    expect(fused.map((h) => h.id)).toEqual(['a', 'b', 'd', 'c']);
  });
});
