import { cpuStopwatch } from '@kb/vitest-config/cpu-time';
import { describe, expect, it } from 'vitest';
import { MAX_CONVERTED_NODES } from './convert.ts';
import { htmlToMarkdown, type HtmlDocument } from './index.ts';

/**
 * Large and deeply nested pages must convert in bounded time without overflowing the stack. The
 * bounds are CPU time (cpuStopwatch, every thread: the garbage collector's included) and only tell
 * linear work from worse, so they are wide: most cases take under 2 s of it on a 2-core machine
 * and the largest pages (5-10 MB) 3-6 s, against the hours a quadratic step would take on them.
 * A slower or busier machine's CPU time grows by a factor, not by hours; what the node budget
 * cuts is checked by counting what it kept, not by time.
 */
const TIME_LIMIT_MS = 60_000;
const LARGE_PAGE_LIMIT_MS = 180_000;
/** Room for the bounds above inside one test (vitest's default of 30 s would cut them short). */
const TEST_TIMEOUT_MS = 4 * LARGE_PAGE_LIMIT_MS;
const MB = 1_000_000;

function timed(html: string, limitMs = TIME_LIMIT_MS): { doc: HtmlDocument; ms: number } {
  const elapsed = cpuStopwatch();
  const doc = htmlToMarkdown(html);
  const ms = elapsed();
  expect(ms).toBeLessThan(limitMs);
  return { doc, ms };
}

const nested = (open: string, close: string, depth: number, inner = 'deep text'): string =>
  `<html><body><main>${open.repeat(depth)}${inner}${close.repeat(depth)}<p>After the nesting.</p></main></body></html>`;

describe('deep nesting', { timeout: TEST_TIMEOUT_MS }, () => {
  it.each([
    ['div', '<div>', '</div>'],
    ['span', '<span>', '</span>'],
    ['blockquote', '<blockquote>', '</blockquote>'],
    ['list', '<ul><li>', '</li></ul>'],
    ['table', '<table><tr><td>', '</td></tr></table>'],
    ['section with class', '<section class="x">', '</section>'],
    ['self-closing div (not self-closing in HTML)', '<div/>', ''],
  ])('10,000 nested %s', (_name, open, close) => {
    const { doc } = timed(nested(open, close, 10_000));
    expect(doc.markdown.includes('deep text')).toBe(true);
    expect(doc.markdown.includes('After the nesting.')).toBe(true);
  });

  it('10,000 nested emphasis elements (exponential in remark-stringify if left nested)', () => {
    for (const tag of ['b', 'em', 'strong', 'i']) {
      const { doc } = timed(nested(`<${tag}>`, `</${tag}>`, 10_000));
      expect(doc.markdown).toContain('deep text');
    }
    const { doc } = timed(nested('<b><i>', '</i></b>', 5_000));
    expect(doc.markdown).toContain('deep text');
  });

  it('100,000 unclosed divs', () => {
    const { doc } = timed(`<main>${'<div>'.repeat(100_000)}unclosed<p>paragraph</p>`);
    expect(doc.markdown).toContain('unclosed');
    expect(doc.markdown).toContain('paragraph');
  });

  it('keeps the text of content nested deeper than the conversion limit', () => {
    const { doc } = timed(nested('<div><p>level</p>', '</div>', 300));
    expect(doc.markdown.match(/level/g)).toHaveLength(300);
    expect(doc.markdown).toContain('deep text');
  });

  it('keeps the blocks of content nested deeper than the conversion limit apart, and line breaks', () => {
    const deep = '<div>'.repeat(150) + '<p>one<br>two</p><form>three<fieldset>four</fieldset></form><center>five</center><span>six</span> seven' + '</div>'.repeat(150);
    const { doc } = timed(`<html><body><main>${deep}</main></body></html>`);
    expect(doc.markdown.split(/\n\n/).map((p) => p.trim())).toEqual(['one', 'two', 'three', 'four', 'five', 'six seven']);
  });
});

describe('large pages', { timeout: TEST_TIMEOUT_MS }, () => {
  it('a 10 MB page of scripts, styles, chrome and a long article', () => {
    const section = (n: number): string =>
      `<h2 id="s${n}">Section ${n}</h2><p>Paragraph with <a href="/p/${n}">a link</a>, <b>bold</b> and <code>code</code> text ` +
      `that goes on for a while to look like real prose in a documentation page.</p>` +
      `<ul><li>First item</li><li>Second item with <em>emphasis</em></li></ul>` +
      `<table><tr><th>Key</th><th>Value</th></tr><tr><td>k${n}</td><td>v${n}</td></tr></table>` +
      `<pre><code class="language-js">const value${n} = compute(${n});\n</code></pre>`;
    const article = Array.from({ length: 2_000 }, (_, n) => section(n)).join('\n');
    const nav = `<nav><ul>${Array.from({ length: 5_000 }, (_, n) => `<li><a href="/n/${n}">Nav ${n}</a></li>`).join('')}</ul></nav>`;
    const svg = `<svg viewBox="0 0 10 10">${'<path d="M0 0 L10 10 L5 5 Z"/>'.repeat(20_000)}</svg>`;
    const script = `<script>window.__DATA__ = ${JSON.stringify({ items: Array.from({ length: 60_000 }, (_, n) => ({ n, label: `item ${n}` })) })};</script>`;
    const style = `<style>${'.c { color: red; margin: 0 auto; }\n'.repeat(60_000)}</style>`;
    let html = `<html><head><title>Big page</title>${style}</head><body>${nav}${svg}<main>${article}</main>${script}`;
    const filler = `<div class="ad" data-x="${'x'.repeat(1_000)}"></div>`;
    while (html.length < 10 * MB) html += filler;
    html += '</body></html>';
    expect(html.length).toBeGreaterThanOrEqual(10 * MB);
    const { doc } = timed(html, LARGE_PAGE_LIMIT_MS);
    expect(doc.title).toBe('Big page');
    expect(doc.truncated).toBe(false);
    // Boolean checks: a failing toContain would print megabytes.
    const has = (text: string): boolean => doc.markdown.includes(text);
    expect(doc.markdown.startsWith('## Section 0\n')).toBe(true);
    expect(has('## Section 1999\n')).toBe(true);
    expect(has('```js\nconst value1999 = compute(1999);\n```')).toBe(true);
    expect(has('| k1999 | v1999 |')).toBe(true);
    expect(has('Nav 1')).toBe(false);
    expect(has('__DATA__')).toBe(false);
    expect(has('color: red')).toBe(false);
  });

  it('content over the node budget is cut, and says so', () => {
    const { doc } = timed(`<main>${'<p>Paragraph of text.</p>'.repeat(110_000)}</main>`);
    expect(doc.truncated).toBe(true);
    expect(doc.markdown.startsWith('Paragraph of text.\n\nParagraph of text.\n')).toBe(true);
    // The budget counts nodes: each paragraph is two (the element and its text), <main> one.
    const paragraphs = doc.markdown.split('\n\n').length;
    expect(paragraphs).toBeGreaterThanOrEqual(Math.floor((MAX_CONVERTED_NODES - 1) / 2) - 1);
    expect(paragraphs).toBeLessThanOrEqual(MAX_CONVERTED_NODES / 2);
  });

  it('one 5 MB paragraph and one 5 MB code block', () => {
    const text = timed(`<p>${'word '.repeat(MB)}</p>`, LARGE_PAGE_LIMIT_MS);
    expect(text.doc.markdown.length).toBeGreaterThan(4.9 * MB);
    const code = timed(`<pre>${'line of code\n'.repeat(MB / 2)}</pre>`, LARGE_PAGE_LIMIT_MS);
    expect(code.doc.markdown.startsWith('```\nline of code\n')).toBe(true);
  });

  it('unterminated markup: an open comment, an open attribute quote, lone angle brackets', () => {
    expect(timed(`<p>before</p><!-- ${'x'.repeat(MB)}`).doc.markdown).toBe('before\n');
    expect(timed(`<p>before</p><div title="${'>'.repeat(MB)}`).doc.markdown).toBe('before\n');
    expect(timed(`<p>${'<a'.repeat(MB / 2)}</p>`).doc.markdown).toBe('');
    expect(timed(`<p>${'a < b > c '.repeat(100_000)}</p>`).doc.markdown.startsWith('a < b > c a < b > c')).toBe(true);
  });
});
