import { describe, expect, it } from 'vitest';
import { LexicalVectorizer } from './lexical/vectorize.ts';
import { embeddingText, prepareDocuments, splitDocument } from './prepare.ts';

describe('splitDocument', () => {
  it('keeps every section and only the first of repeated children, numbered without gaps', () => {
    const content = ['# Doc', '', 'Same text.', '', '# Doc', '', 'Same text.', '', '# Other', '', 'Different text.', ''].join('\n');
    const split = splitDocument({ title: 'Doc', content: `---\nowner: ops\n---\n${content}` });
    expect(split.metadata).toEqual({ owner: 'ops' });
    expect(split.parents.length).toBeGreaterThanOrEqual(3);
    const keys = split.children.map((c) => `${c.headingPath}|${c.content}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(split.children.map((c) => c.ordinal)).toEqual(split.children.map((_, i) => i));
    expect(split.children.filter((c) => c.content.includes('Same text.'))).toHaveLength(1);
    expect(split.children.some((c) => c.content.includes('Different text.'))).toBe(true);
    const ordinals = new Set(split.parents.map((p) => p.ordinal));
    for (const child of split.children) expect(ordinals.has(child.parentOrdinal)).toBe(true);
  });
});

describe('prepareDocuments', () => {
  it("holds each child's vector of its heading trail and text, in order", () => {
    const documents = [
      { title: 'A', content: '# A\n\nalpha text\n\n## B\n\nbeta text\n' },
      { title: 'Empty', content: '' },
    ];
    const { documents: split, vectors } = prepareDocuments(documents, 32);
    expect(split).toEqual(documents.map(splitDocument));
    const vectorizer = new LexicalVectorizer({ dimension: 32 });
    const expected = split.flatMap((d) => d.children.flatMap((c) => Array.from(vectorizer.vector(embeddingText(c.headingPath, c.content)))));
    expect(expected.length).toBeGreaterThan(0);
    expect(Array.from(vectors)).toEqual(expected);
    expect(embeddingText('A > B', 'beta text')).toBe('A > B\n\nbeta text');
  });
});
