import { describe, expect, it } from 'vitest';
import { rocchio } from './prf.ts';

describe('rocchio', () => {
  it('moves the query towards the feedback centroid and normalises', () => {
    const q = rocchio([1, 0, 0], [[0, 1, 0], [0, 0, 1]], 2);
    const n = Math.sqrt(3);
    expect(q[0]).toBeCloseTo(1 / n, 12);
    expect(q[1]).toBeCloseTo(1 / n, 12);
    expect(q[2]).toBeCloseTo(1 / n, 12);
    const plain = rocchio([3, 4], []);
    expect(plain[0]).toBeCloseTo(0.6, 12);
    expect(plain[1]).toBeCloseTo(0.8, 12);
    expect(() => rocchio([1, 0], [[1]])).toThrow(RangeError);
  });
});
