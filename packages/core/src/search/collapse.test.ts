import { describe, expect, it } from 'vitest';
import { collapseIdentical } from './search.service.ts';

describe('collapseIdentical', () => {
  it('keeps each passage once, at its best rank, up to topK', () => {
    const results = [
      { id: 'a', content: 'Shared text.' },
      { id: 'b', content: 'Own text.' },
      { id: 'c', content: '  Shared\n text. ' },
      { id: 'd', content: 'Third text.' },
      { id: 'e', content: 'Fourth text.' },
    ];
    expect(collapseIdentical(results, 10).map((r) => r.id)).toEqual(['a', 'b', 'd', 'e']);
    expect(collapseIdentical(results, 3).map((r) => r.id)).toEqual(['a', 'b', 'd']);
    expect(collapseIdentical([], 3)).toEqual([]);
  });

  it('tells apart passages that differ in more than white space', () => {
    expect(collapseIdentical([{ content: 'Use apt.' }, { content: 'Use apt!' }, { content: 'use apt.' }], 5)).toHaveLength(3);
  });
});
