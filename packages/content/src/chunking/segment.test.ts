import { describe, expect, it } from 'vitest';
import type { Item } from './blocks.ts';
import { fallbackSegment } from './fallback-blocks.ts';
import { chunkMarkdown } from './index.ts';
import { parseSegment } from './remark-blocks.ts';
import { parseDocument, segmentDocument } from './segment.ts';

const headingsOf = (items: readonly Item[]): string[] =>
  items.flatMap((item) => (item.type === 'heading' ? [`h${item.depth}:${item.raw}@${item.start}`] : []));
const blockKinds = (items: readonly Item[]): string[] =>
  items.flatMap((item) => (item.type === 'block' ? [`${item.unit.kind}@${item.unit.start}`] : []));

/** A long, varied document: every section has prose, a list, code with `#` lines, a table, HTML. */
function realisticDocument(sections: number): string {
  const parts: string[] = [];
  for (let i = 0; i < sections; i++) {
    parts.push(
      `## Section ${i}`,
      `Some *prose* for section ${i}, with a [link](https://example.com/${i}) and \`code\`.`,
      `- first item ${i}\n- second item\n  continued lazily\n\n  second paragraph of the item`,
      '```sh\n# a shell comment, not a heading\n\necho "section ' + i + '"\n\n# another\n```',
      `| key | value |\n|-----|-------|\n| k${i} | v${i} |`,
      `<!--\n# commented heading ${i}\n\nstill a comment\n-->`,
      `> quoted ${i}\n> more quote`,
      `Setext ${i}\n---`,
    );
  }
  return parts.join('\n\n') + '\n';
}

describe('segmentation', () => {
  it('cuts long documents into several segments', () => {
    const source = realisticDocument(200);
    const segments = segmentDocument(source, 0);
    expect(segments.length).toBeGreaterThan(5);
    expect(segments[0]?.start).toBe(0);
    expect(segments.at(-1)?.end).toBe(source.length);
    for (let i = 1; i < segments.length; i++) expect(segments[i]?.start).toBe(segments[i - 1]?.end);
  });

  it('gives the same headings and blocks as parsing the whole document at once', () => {
    const source = realisticDocument(80);
    const whole = parseSegment(source, 0, source.length).items;
    const segmented = parseDocument(source, 0, Number.POSITIVE_INFINITY);
    expect(segmented.fallbackSegments).toBe(0);
    expect(headingsOf(segmented.items)).toEqual(headingsOf(whole));
    expect(blockKinds(segmented.items)).toEqual(blockKinds(whole));
  });

  it('recovers when a fence inside a list item makes the scanner lose track', () => {
    // The scanner takes the indented fence of the list item for a top-level fence, so it sees the
    // real fence below as a closing one and the comment inside it as a heading where it may cut.
    const filler = Array.from({ length: 140 }, (_, i) => `text line ${i}`).join('\n');
    const source = [
      '- item\n  ```\n  unclosed code in the item',
      '# Real heading',
      filler,
      '```',
      '# comment inside real code',
      'more code',
      '```',
      'after',
    ].join('\n') + '\n';
    const cut = source.indexOf('# comment inside real code');
    expect(segmentDocument(source, 0).map((segment) => segment.start)).toContain(cut);
    const doc = chunkMarkdown({ title: 'T', content: source });
    expect(doc.parents.map((parent) => parent.headingPath)).toEqual(['T', 'T > Real heading']);
    const whole = parseSegment(source, 0, source.length).items;
    expect(headingsOf(parseDocument(source, 0).items)).toEqual(headingsOf(whole));
    expect(blockKinds(parseDocument(source, 0).items)).toEqual(blockKinds(whole));
  });

  it('recovers when an HTML block inside a list item makes the scanner lose track', () => {
    const filler = Array.from({ length: 140 }, (_, i) => `comment line ${i}`).join('\n');
    const source = ['- item\n  <pre>', '# Heading 1', '<!-- </pre>', filler, '# not a heading', '-->', '', 'After.'].join('\n') + '\n';
    expect(segmentDocument(source, 0).map((segment) => segment.start)).toContain(source.indexOf('# not a heading'));
    const doc = chunkMarkdown({ title: 'T', content: source });
    expect(doc.parents.map((parent) => parent.headingPath)).toEqual(['T', 'T > Heading 1']);
  });

  it('does not take a thematic break at the start of a later segment for front matter', () => {
    const filler = Array.from({ length: 140 }, (_, i) => `filler line ${i}`).join('\n');
    const source = `---\ntitle: Real front matter\n---\n${filler}\n\n---\n\nText between the rules.\n\n---\n\nEnd.\n`;
    const doc = chunkMarkdown({ title: 'T', content: source });
    expect(doc.metadata).toEqual({ title: 'Real front matter' });
    const text = doc.parents.flatMap((parent) => parent.children.map((child) => child.content)).join('\n');
    expect(text).toContain('Text between the rules.');
    expect(text).not.toContain('title: Real front matter');
    const bodyStart = source.indexOf('filler line 0');
    expect(segmentDocument(source, bodyStart).map((segment) => segment.start)).toContain(source.indexOf('---\n\nText'));
    const blocks = parseDocument(source, bodyStart).items.flatMap((item) =>
      item.type === 'block' ? [source.slice(item.unit.start, item.unit.end)] : [],
    );
    expect(blocks.slice(-4)).toEqual(['---', 'Text between the rules.', '---', 'End.']);
  });

  it('sends deeply nested segments to the fallback and keeps the rest on remark', () => {
    const normal = realisticDocument(20);
    const deep = `${'> '.repeat(500)}deep\n`;
    const source = `${normal}\n${deep}\n${normal}`;
    const parsed = parseDocument(source, 0);
    expect(parsed.fallbackSegments).toBe(1);
    // The fallback knows ATX headings (not setext ones).
    const atx = (items: readonly Item[]): string[] => headingsOf(items).filter((heading) => heading.startsWith('h2:Section'));
    expect(atx(parsed.items).length).toBe(40);
  });

  it('falls back once the document budget is spent, keeping headings and fences', () => {
    const source = realisticDocument(60);
    const full = parseDocument(source, 0, Number.POSITIVE_INFINITY);
    const cheap = parseDocument(source, 0, 0);
    expect(cheap.fallbackSegments).toBe(segmentDocument(source, 0).length);
    const atx = (items: readonly Item[]): string[] =>
      headingsOf(items).filter((heading) => heading.startsWith('h2:Section'));
    expect(atx(cheap.items)).toEqual(atx(full.items));
    const code = cheap.items.filter((item) => item.type === 'block' && item.unit.kind === 'code');
    expect(code).toHaveLength(60);
  });
});

describe('fallback splitter', () => {
  it('recognises headings, fences, tables and prose', () => {
    const source = [
      '# Title #',
      'Paragraph line one',
      'line two',
      '',
      '```',
      '# not a heading',
      '',
      'code',
      '```',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '| 3 | 4 |',
      '',
      '[ref]: https://example.com',
      '',
      '<!--',
      '# hidden',
      '',
      '-->',
    ].join('\n');
    const { items, definitionLabels } = fallbackSegment(source, 0, source.length);
    expect(items.map((item) => (item.type === 'heading' ? `h${item.depth}:${item.raw}` : item.unit.kind))).toEqual([
      'h1:Title',
      'text',
      'code',
      'table',
      'text',
      'text',
    ]);
    const table = items[3];
    expect(table?.type === 'block' && table.unit.kind === 'table' ? table.unit.rows.length : 0).toBe(2);
    expect(definitionLabels).toEqual(['ref']);
  });
});
