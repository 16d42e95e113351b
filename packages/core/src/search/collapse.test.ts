import { describe, expect, it } from 'vitest';
import { collapseIdentical, FRAGMENT_WEIGHT } from './search.service.ts';

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

describe('collapseIdentical with included fragments', () => {
  const hit = (chunkId: string, documentId: string, content: string, score: number) => ({ chunkId, documentId, content, score });

  it("ranks a fragment's copy below a page's own text unless it scores clearly higher", () => {
    const results = [hit('f1', 'formats', 'AsciiDoc requires Asciidoctor.', 0.9), hit('o1', 'markup', 'Configure the AsciiDoc renderer.', 0.85), hit('o2', 'other', 'Unrelated.', 0.5)];
    const fragments = new Map([['f1', '_common/table.md']]);
    const kept = collapseIdentical(results, 10, fragments);
    expect(kept.map((r) => r.chunkId)).toEqual(['o1', 'f1', 'o2']);
    expect(kept[1]!.score).toBeCloseTo(0.9 * FRAGMENT_WEIGHT);
    // Far ahead, the copy stays first.
    expect(collapseIdentical([hit('f1', 'formats', 'x', 0.9), hit('o1', 'markup', 'y', 0.3)], 10, fragments).map((r) => r.chunkId)).toEqual(['f1', 'o1']);
  });

  it("keeps a fragment from one document only, even where its copies were cut differently", () => {
    const results = [
      hit('a1', 'page-a', 'Option one. Option two.', 0.9),
      hit('b1', 'page-b', 'Option one.', 0.8),
      hit('a2', 'page-a', 'Option three.', 0.7),
      hit('c1', 'page-c', 'Own text of page c.', 0.6),
      hit('b2', 'page-b', 'Option three, cut otherwise.', 0.5),
    ];
    const fragments = new Map([['a1', 'opts.md'], ['b1', 'opts.md'], ['a2', 'opts.md'], ['b2', 'opts.md']]);
    // a2 (0.7 weighted to 0.56) falls below c1's own text (0.6); b1 and b2 are copies from page b.
    expect(collapseIdentical(results, 10, fragments).map((r) => r.chunkId)).toEqual(['a1', 'c1', 'a2']);
    expect(collapseIdentical(results, 2, fragments).map((r) => r.chunkId)).toEqual(['a1', 'c1']);
    // Without fragments, only word-for-word copies fold, in the order given.
    expect(collapseIdentical(results, 10).map((r) => r.chunkId)).toEqual(['a1', 'b1', 'a2', 'c1', 'b2']);
  });
});
