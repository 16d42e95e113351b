import { cpuStopwatch } from '@kb/vitest-config/cpu-time';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CHILD_TOKENS, chunkMarkdown, estimateTokens, type ChunkedDocument } from './index.ts';

/**
 * Inputs on which remark/micromark is slow (deep nesting, quadratic container handling, huge
 * blocks) must still finish in bounded time. The bounds are CPU time (cpuStopwatch) and wide on
 * purpose: each of these takes well under 2 s of it on a 2-core machine, a slower or busier one a
 * few times that, and the quadratic or worse behaviour they guard against far longer.
 */
const TIME_LIMIT_MS = 20_000;
/** Room for several bounded calls in one test (vitest's default is 30 s). */
const TEST_TIMEOUT_MS = 120_000;
const MB = 1_000_000;

function timed(content: string, title = 'Pathological'): { doc: ChunkedDocument; ms: number } {
  const elapsed = cpuStopwatch();
  const doc = chunkMarkdown({ title, content });
  return { doc, ms: elapsed() };
}

function expectSane(doc: ChunkedDocument, ms: number): void {
  expect(ms).toBeLessThan(TIME_LIMIT_MS);
  expect(doc.parents.length).toBeGreaterThan(0);
  // Plain checks (one expect per document: tens of thousands of expect calls are slow).
  const problems: string[] = [];
  let ordinal = 0;
  for (const parent of doc.parents) {
    for (const child of parent.children) {
      if (child.ordinal !== ordinal++) problems.push(`ordinal ${child.ordinal}`);
      if (child.content.trim() === '') problems.push(`empty child ${child.ordinal}`);
      if (child.tokenCount !== estimateTokens(child.content)) problems.push(`tokenCount of ${child.ordinal}`);
      if (child.tokenCount > DEFAULT_MAX_CHILD_TOKENS) problems.push(`child ${child.ordinal} too big`);
    }
  }
  expect(problems.slice(0, 10)).toEqual([]);
}

const allText = (doc: ChunkedDocument): string =>
  doc.parents.flatMap((parent) => parent.children.map((child) => child.content)).join('');

describe('deep nesting', { timeout: TEST_TIMEOUT_MS }, () => {
  it('10,000 nested block quotes', () => {
    const compact = timed(`${'>'.repeat(10_000)} deep text\n`);
    expectSane(compact.doc, compact.ms);
    expect(allText(compact.doc)).toContain('deep text');
    const spaced = timed(`${'> '.repeat(10_000)}deep text\n\nAfter.\n`);
    expectSane(spaced.doc, spaced.ms);
    expect(allText(spaced.doc)).toContain('After.');
  });

  it('10,000 nested list markers', () => {
    for (const marker of ['- ', '1. ', '* + ']) {
      const { doc, ms } = timed(`${marker.repeat(10_000)}deep item\n\n# Next\n\nText.\n`);
      expectSane(doc, ms);
      expect(doc.parents.at(-1)?.headingPath).toBe('Pathological > Next');
    }
  });

  it('1,000 list levels by indentation (1 MB)', () => {
    const content = Array.from({ length: 1_000 }, (_, level) => `${'  '.repeat(level)}- level ${level}`).join('\n');
    expect(content.length).toBeGreaterThan(MB);
    const { doc, ms } = timed(content);
    expectSane(doc, ms);
    expect(allText(doc)).toContain('level 999');
  });

  it('1 MB of quote lines 39 levels deep', () => {
    const { doc, ms } = timed(`${'> '.repeat(39)}text\n`.repeat(12_500));
    expectSane(doc, ms);
  });
});

describe('long lines and inline pathologies', { timeout: TEST_TIMEOUT_MS }, () => {
  it('a single 100,000-character line of words', () => {
    const line = 'lorem ipsum dolor sit amet '.repeat(3_704).trim();
    expect(line.length).toBeGreaterThan(100_000);
    const { doc, ms } = timed(line);
    expectSane(doc, ms);
    expect(doc.parents[0]?.children.map((child) => child.content).join(' ')).toBe(line);
  });

  it('a single 100,000-character word', () => {
    const word = 'a'.repeat(100_000);
    const { doc, ms } = timed(`# Heading\n\n${word}\n`);
    expectSane(doc, ms);
    expect(allText(doc)).toBe(word);
  });

  it('"*_" repeated 10,000 times, in a paragraph and in a heading', () => {
    const noise = '*_'.repeat(10_000);
    const paragraph = timed(noise);
    expectSane(paragraph.doc, paragraph.ms);
    expect(allText(paragraph.doc)).toBe(noise);
    const heading = timed(`# ${noise}\n\nBody.\n`);
    expectSane(heading.doc, heading.ms);
    expect(heading.doc.parents[0]?.children[0]?.content).toBe('Body.');
  });

  it('unbalanced brackets and backticks', () => {
    for (const content of ['['.repeat(100_000), '`a'.repeat(50_000), '<'.repeat(50_000) + 'a', '](('.repeat(30_000)]) {
      const { doc, ms } = timed(content);
      expectSane(doc, ms);
    }
  });
});

describe('1 MB documents', { timeout: TEST_TIMEOUT_MS }, () => {
  it('realistic mixed content', () => {
    const section = (i: number): string =>
      [
        `## Section ${i}`,
        `Some paragraph text with *emphasis*, \`code\` and a [link](https://example.com/${i}). It goes on for a while.`,
        '- first item\n- second item\n  - nested item',
        '```js\n// comment\nconst x = ' + i + ';\n```',
        '| a | b |\n|---|---|\n| 1 | 2 |',
        '> A quote.',
      ].join('\n\n');
    const content = Array.from({ length: 4_200 }, (_, i) => section(i)).join('\n\n');
    expect(content.length).toBeGreaterThan(MB);
    const { doc, ms } = timed(content);
    expectSane(doc, ms);
    expect(doc.parents).toHaveLength(4_200);
    expect(doc.parents[4_199]?.headingPath).toBe('Pathological > Section 4199');
  });

  it('many small lists (quadratic in micromark without segmentation)', () => {
    const { doc, ms } = timed('Paragraph.\n\n- item\n\n'.repeat(50_000));
    expectSane(doc, ms);
  });

  it('one huge list, one huge lazy block quote, one huge paragraph', () => {
    for (const content of ['- item\n'.repeat(150_000), `> quote\n${'lazy line\n'.repeat(100_000)}`, 'word word word\n'.repeat(70_000)]) {
      const { doc, ms } = timed(content);
      expectSane(doc, ms);
    }
  });

  it('many headings with inline markup', () => {
    const { doc, ms } = timed('# *Heading* `x` [y](z)\n\nText.\n\n'.repeat(30_000));
    expectSane(doc, ms);
    expect(doc.parents[0]?.headingPath).toBe('Pathological > Heading x y');
    expect(doc.parents.at(-1)?.headingPath).toBe('Pathological > Heading x y');
  });

  it('an unclosed code fence running to the end', () => {
    const { doc, ms } = timed(`Intro.\n\n\`\`\`\n${'code line\n\n# not a heading\n'.repeat(40_000)}`);
    expectSane(doc, ms);
    expect(doc.parents).toHaveLength(1);
  });

  it('a huge table', () => {
    const { doc, ms } = timed(`| a | b |\n|---|---|\n${'| cell | value |\n'.repeat(60_000)}`);
    expectSane(doc, ms);
    const children = doc.parents[0]?.children ?? [];
    expect(children.filter((child) => !child.content.startsWith('| a | b |\n|---|---|\n'))).toEqual([]);
  });

  it('footnote and link definitions', () => {
    const content = Array.from({ length: 20_000 }, (_, i) => `[^n${i}]: note ${i}\n\n[d${i}]: https://x/${i}`).join('\n\n');
    const { doc, ms } = timed(content);
    expectSane(doc, ms);
  });
});
