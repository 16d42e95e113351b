import { cpuStopwatch } from '@kb/vitest-config/cpu-time';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../html/elements.ts';
import { parseStorage } from './parse.ts';
import { StorageRenderer } from './render.ts';
import { createUrlResolver } from './resources.ts';

/**
 * Hostile and huge inputs must convert in bounded time without overflowing the stack. The
 * conversion is called without the public entry point's safety net, so that any exception
 * fails the test. Each case takes well under 2 s of CPU time (cpuStopwatch) on a 2-core machine;
 * the bound is ten times that, for slower or busier machines, and quadratic behaviour on these
 * megabyte inputs would take minutes.
 */
const TIME_LIMIT_MS = 20_000;
/** Room for several bounded calls in one test (vitest's default is 30 s). */
const TEST_TIMEOUT_MS = 120_000;
const MB = 1_000_000;

const renderer = new StorageRenderer(createUrlResolver('https://acme.atlassian.net/wiki'));

function convert(storage: string): string {
  const elapsed = cpuStopwatch();
  const markdown = renderer.render(parseStorage(storage));
  expect(elapsed()).toBeLessThan(TIME_LIMIT_MS);
  return markdown;
}

/** Boolean checks: a failing toContain would print megabytes. */
const has = (markdown: string, text: string): boolean => markdown.includes(text);

describe('deep nesting', { timeout: TEST_TIMEOUT_MS }, () => {
  const nestings: [string, string, string][] = [
    ['div', '<div>', '</div>'],
    ['span', '<span>', '</span>'],
    ['p', '<p>', '</p>'],
    ['bullet list', '<ul><li>', '</li></ul>'],
    ['ordered list', '<ol><li><p>x</p>', '</li></ol>'],
    ['table', '<table><tr><td>', '</td></tr></table>'],
    ['table with a header', '<table><tr><th>h</th><th>i</th></tr><tr><td>', '</td><td>c</td></tr></table>'],
    ['blockquote', '<blockquote>', '</blockquote>'],
    ['bold', '<strong>', '</strong>'],
    ['bold and italic', '<b><i>', '</i></b>'],
    ['link', '<a href="https://example.com">', '</a>'],
    ['info panel', '<ac:structured-macro ac:name="info"><ac:rich-text-body>', '</ac:rich-text-body></ac:structured-macro>'],
    [
      'expand',
      '<ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">T</ac:parameter><ac:rich-text-body>',
      '</ac:rich-text-body></ac:structured-macro>',
    ],
    ['unknown macro', '<ac:structured-macro ac:name="x"><ac:rich-text-body>', '</ac:rich-text-body></ac:structured-macro>'],
    ['layout', '<ac:layout><ac:layout-section><ac:layout-cell>', '</ac:layout-cell></ac:layout-section></ac:layout>'],
    ['task list', '<ac:task-list><ac:task><ac:task-status>complete</ac:task-status><ac:task-body>', '</ac:task-body></ac:task></ac:task-list>'],
    ['confluence link', '<ac:link><ac:link-body>', '</ac:link-body></ac:link>'],
    ['heading in a list', '<ul><li><h2>h</h2>', '</li></ul>'],
    ['status inside spans', '<span><ac:structured-macro ac:name="status"><ac:parameter ac:name="title">S</ac:parameter></ac:structured-macro>', '</span>'],
    ['self-closing divs', '<div/>', ''],
  ];

  it.each(nestings)('10,000 nested %s', (_name, open, close) => {
    const markdown = convert(`${open.repeat(10_000)}deep text${close.repeat(10_000)}<p>After the nesting.</p>`);
    expect(has(markdown, 'deep text')).toBe(true);
    expect(has(markdown, 'After the nesting.')).toBe(true);
  });

  it('100,000 unclosed elements', () => {
    for (const open of ['<div>', '<li>', '<td>', '<b>', '<ac:structured-macro ac:name="info"><ac:rich-text-body>']) {
      const markdown = convert(`${open.repeat(100_000)}unclosed<p>paragraph</p>`);
      expect(has(markdown, 'unclosed')).toBe(true);
      expect(has(markdown, 'paragraph')).toBe(true);
    }
  });

  it('100,000 stray end tags', () => {
    const markdown = convert(`<p>before${'</div></li></ac:structured-macro>'.repeat(100_000)}after</p>`);
    expect(markdown).toBe('beforeafter\n');
  });

  it('keeps the structure of moderately deep lists and quotes as valid Markdown', () => {
    const markdown = convert(`${'<ul><li>level'.repeat(40)}${'</li></ul>'.repeat(40)}${'<blockquote><p>q</p>'.repeat(40)}${'</blockquote>'.repeat(40)}`);
    const root = unified().use(remarkParse).use(remarkGfm).parse(markdown);
    expect(root.children.map((node) => node.type)).toEqual(['list', 'blockquote']);
    expect(markdown.match(/level/g)).toHaveLength(40);
    expect(markdown.match(/q/g)).toHaveLength(40);
  });
});

describe('huge values', { timeout: TEST_TIMEOUT_MS }, () => {
  it('1 MB attribute values', () => {
    const big = 'x'.repeat(MB);
    expect(convert(`<p title="${big}" class='${big}' data-x=${big}>text</p>`)).toBe('text\n');
    const link = convert(`<p><a href="https://example.com/${big}">link</a></p>`);
    expect(link.length).toBeGreaterThan(MB);
    expect(link.startsWith('[link](https://example.com/xxx')).toBe(true);
    const image = convert(`<ac:image ac:alt="${'alt '.repeat(MB / 4)}"><ri:attachment ri:filename="a.png" /></ac:image>`);
    expect(image.startsWith('alt alt')).toBe(true);
  });

  it('unterminated attribute quotes', () => {
    expect(has(convert(`<p>before</p><div title="${'>'.repeat(MB)}`), 'before')).toBe(true);
    expect(has(convert(`<p>before</p><a href='${'<p>'.repeat(MB / 3)}`), 'before')).toBe(true);
    expect(has(convert(`${'<a x="'.repeat(MB / 6)}<p>end</p>`), 'end')).toBe(true);
  });

  it('100,000-character lines and words', () => {
    const word = 'a'.repeat(100_000);
    expect(convert(`<p>${word}</p>`)).toBe(`${word}\n`);
    const code = convert(`<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[${'y'.repeat(100_000)}]]></ac:plain-text-body></ac:structured-macro>`);
    expect(code).toBe(`\`\`\`\n${'y'.repeat(100_000)}\n\`\`\`\n`);
    const backticks = convert(`<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[${'`'.repeat(100_000)}]]></ac:plain-text-body></ac:structured-macro>`);
    expect(backticks.startsWith('`'.repeat(100_001))).toBe(true);
    expect(convert(`<p><code>${'`'.repeat(100_000)}</code></p>`).length).toBeGreaterThan(300_000);
  });

  it('100,000-character lines of markup characters', () => {
    for (const char of ['*', '_', '[', ']', '`', '<', '&', '~', '\\', '#', '-', '=', '|', '>', '+', '1', '.', ' *', '-|', '&a', '&#1']) {
      const line = char.repeat(Math.ceil(100_000 / char.length));
      const escaped = escapeHtml(line);
      const markdown = convert(`<p>${escaped}</p><table><tr><td>${escaped}</td><td>b</td></tr></table><h2>${escaped}</h2>`);
      expect(markdown.length).toBeGreaterThan(line.trim().length);
    }
  });

  it('emphasis and links by the thousand', () => {
    const markdown = convert(`<p>${'<b>b</b><i>(i)</i>x<a href="u">l</a>'.repeat(50_000)}</p>`);
    expect(markdown.length).toBeGreaterThan(50_000 * 10);
  });

  it('a table with a million-column span and a 100,000-row span', () => {
    const markdown = convert(`<table><tr><td colspan="1000000" rowspan="100000">a</td></tr>${'<tr><td>b</td></tr>'.repeat(10_000)}</table>`);
    expect(markdown.split('\n')[0]?.split('|').length).toBe(102);
  });
});

describe('malformed markup', { timeout: TEST_TIMEOUT_MS }, () => {
  it('CDATA and comments never closed', () => {
    const body = 'line <b>not a tag</b> &amp;\n'.repeat(40_000);
    const code = convert(`<p>before</p><ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[${body}`);
    expect(code.startsWith('before\n\n```\nline <b>not a tag</b> &amp;\n')).toBe(true);
    expect(convert(`<p>before</p><!-- ${'<p>x</p>'.repeat(100_000)}`)).toBe('before\n');
  });

  it('stray angle brackets and broken tags by the megabyte', () => {
    for (const junk of ['<', '< ', '<a', '</a', '</', '<!', '<?', '<a x="1"', '<a/', '<<>>', '</p <p>', '<a x=', "<a x='", '<a x="']) {
      const markdown = convert(`<p>start ${junk.repeat(Math.ceil(MB / junk.length))} end</p>`);
      expect(typeof markdown).toBe('string');
    }
  });

  it('unknown entities and bare ampersands by the hundred thousand', () => {
    expect(has(convert(`<p>${'&bogus;'.repeat(100_000)}</p>`), '\\&bogus;\\&bogus;')).toBe(true);
    expect(convert(`<p>${'&'.repeat(MB)}</p>`).length).toBeGreaterThanOrEqual(MB);
    expect(convert(`<p>${'&#'.repeat(MB / 2)}</p>`).length).toBeGreaterThanOrEqual(MB);
    expect(convert(`<p>${`&${'a'.repeat(30)}`.repeat(30_000)}</p>`).length).toBeGreaterThan(900_000);
  });

  it('random fragments of storage syntax', () => {
    const pieces = [
      '<p>', '</p>', '<ul>', '<li>', '</li>', '</ul>', '<table>', '<tr>', '<td>', '<th>', '</td>', '</table>', '<h2>', '</h2>',
      '<strong>', '</strong>', '<em>', '<code>', '</code>', '<br/>', '<hr>', '<a href="https://x.example/?a=1&amp;b">', '</a>',
      '<ac:structured-macro ac:name="code">', '<ac:structured-macro ac:name="info">', '<ac:structured-macro ac:name="status">',
      '<ac:structured-macro ac:name="expand">', '</ac:structured-macro>', '<ac:parameter ac:name="title">', '</ac:parameter>',
      '<ac:rich-text-body>', '</ac:rich-text-body>', '<ac:plain-text-body><![CDATA[', ']]>', '</ac:plain-text-body>',
      '<ac:task-list>', '<ac:task>', '<ac:task-status>complete</ac:task-status>', '<ac:task-body>', '</ac:task-body>',
      '<ac:link>', '<ri:page ri:content-title="P"/>', '<ac:link-body>', '</ac:link>', '<ac:image ac:alt="img">', '</ac:image>',
      '<ac:layout-section>', '<ac:layout-cell>', '<ac:emoticon ac:emoji-fallback="\\uD83D"/>', '<time datetime="2024"/>',
      '<!--', '-->', '<![CDATA[', '&nbsp;', '&amp;', '&#x1F600;', '&#55296;', '&bogus;', '&', '<', '>', '"', "'", '=', '/',
      '# ', '* ', '- ', '1. ', '> ', '|', '`', '```', '_', '~', '[', ']', '\\', '\n', ' ', 'text', 'ü', '😀', '\u0000',
    ];
    let seed = 42;
    const next = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const parser = unified().use(remarkParse).use(remarkGfm);
    for (let round = 0; round < 300; round++) {
      const length = 1 + Math.floor(next() * 200);
      let storage = '';
      for (let index = 0; index < length; index++) storage += pieces[Math.floor(next() * pieces.length)];
      const markdown = convert(storage);
      expect(markdown === '' || markdown.endsWith('\n')).toBe(true);
      parser.parse(markdown);
    }
  });
});

describe('large pages', { timeout: TEST_TIMEOUT_MS }, () => {
  it('a 5 MB page of typical content', () => {
    const section = (n: number): string =>
      `<h2>Section ${n}</h2><p>Paragraph with <a href="/p/${n}">a link</a>, <strong>bold</strong> and <code>code</code> ` +
      'text that goes on for a while to look like real prose in a documentation page &mdash; and more.</p>' +
      '<ul><li><p>First item</p></li><li><p>Second item with <em>emphasis</em></p></li></ul>' +
      `<table><tbody><tr><th><p>Key</p></th><th><p>Value</p></th></tr><tr><td><p>k${n}</p></td><td><p>v${n}</p></td></tr></tbody></table>` +
      `<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">js</ac:parameter><ac:plain-text-body><![CDATA[const value${n} = compute(${n});]]></ac:plain-text-body></ac:structured-macro>` +
      `<ac:structured-macro ac:name="note"><ac:parameter ac:name="title">Note ${n}</ac:parameter><ac:rich-text-body><p>Careful.</p></ac:rich-text-body></ac:structured-macro>`;
    let storage = '';
    for (let n = 0; storage.length < 5 * MB; n++) storage += section(n);
    const markdown = convert(storage);
    expect(markdown.startsWith('## Section 0\n\nParagraph with [a link](https://acme.atlassian.net/p/0), **bold** and `code` text')).toBe(true);
    expect(has(markdown, '| k1000 | v1000 |')).toBe(true);
    expect(has(markdown, '```js\nconst value1000 = compute(1000);\n```')).toBe(true);
    expect(has(markdown, '> **Note 1000**\n>\n> Careful.')).toBe(true);
  });
});
