import { describe, expect, it } from 'vitest';
import {
  CHUNKER_VERSION,
  DEFAULT_MAX_CHILD_TOKENS,
  chunkMarkdown,
  estimateTokens,
  isPointerOnly,
  type ChildChunk,
  type ChunkOptions,
  type ChunkedDocument,
} from './index.ts';

const chunk = (content: string, options?: ChunkOptions, title = 'Guide'): ChunkedDocument =>
  chunkMarkdown({ title, content }, options);
const childrenOf = (doc: ChunkedDocument): ChildChunk[] => doc.parents.flatMap((parent) => parent.children);
const paths = (doc: ChunkedDocument): string[] => doc.parents.map((parent) => parent.headingPath);

/** Invariants every chunked document must satisfy. */
function expectWellFormed(doc: ChunkedDocument, max = DEFAULT_MAX_CHILD_TOKENS): void {
  let childOrdinal = 0;
  doc.parents.forEach((parent, index) => {
    expect(parent.ordinal).toBe(index);
    expect(parent.children.length).toBeGreaterThan(0);
    for (const child of parent.children) {
      expect(child.ordinal).toBe(childOrdinal++);
      expect(child.headingPath).toBe(parent.headingPath);
      expect(child.content.trim()).not.toBe('');
      expect(child.tokenCount).toBe(estimateTokens(child.content));
      expect(child.tokenCount).toBeLessThanOrEqual(max);
    }
  });
}

describe('public API', () => {
  it('exposes a version and the defaults', () => {
    expect(typeof CHUNKER_VERSION).toBe('string');
    expect(CHUNKER_VERSION.length).toBeGreaterThan(0);
    expect(DEFAULT_MAX_CHILD_TOKENS).toBe(300);
  });
});

describe('heading paths', () => {
  it('builds the trail from the title through nested headings', () => {
    const doc = chunk('# Install\n\nIntro.\n\n## Linux\n\nPick a distro.\n\n### Debian\n\nUse apt.\n\n## macOS\n\nUse brew.\n');
    expect(paths(doc)).toEqual(['Guide > Install', 'Guide > Install > Linux', 'Guide > Install > Linux > Debian', 'Guide > Install > macOS']);
    expectWellFormed(doc);
  });

  it('does not repeat an h1 equal to the title', () => {
    const doc = chunk('# Install Guide\n\nWelcome.\n\n## Linux\n\nText.\n', undefined, 'Install  guide');
    expect(paths(doc)).toEqual(['Install guide', 'Install guide > Linux']);
    const other = chunk('# Something Else\n\nText.\n', undefined, 'Install Guide');
    expect(paths(other)).toEqual(['Install Guide > Something Else']);
  });

  it('handles skipped levels', () => {
    const doc = chunk('# A\n\na\n\n### C\n\nc\n\n## B\n\nb\n\n#### D\n\nd\n\n# E\n\ne\n');
    expect(paths(doc)).toEqual(['Guide > A', 'Guide > A > C', 'Guide > A > B', 'Guide > A > B > D', 'Guide > E']);
    const deepFirst = chunk('### Deep\n\nx\n\n# Top\n\ny\n');
    expect(paths(deepFirst)).toEqual(['Guide > Deep', 'Guide > Top']);
  });

  it('uses the title for a document without headings', () => {
    const content = 'Just a paragraph.\n\nAnd another one.\n';
    const doc = chunk(content);
    expect(doc.parents).toHaveLength(1);
    expect(doc.parents[0]?.headingPath).toBe('Guide');
    expect(doc.parents[0]?.content).toBe(content.trim());
    expectWellFormed(doc);
  });

  it('gives content before the first heading its own parent with the title path', () => {
    const doc = chunk('Preamble text.\n\n# First\n\nBody.\n');
    expect(paths(doc)).toEqual(['Guide', 'Guide > First']);
    expect(doc.parents[0]?.content).toBe('Preamble text.');
  });

  it('drops empty sections but keeps the right path for their subsections', () => {
    const doc = chunk('# Install\n\n## Linux\n\n### Debian\n\nUse apt.\n\n## Empty\n\n## Windows\n\nUse the installer.\n');
    expect(paths(doc)).toEqual(['Guide > Install > Linux > Debian', 'Guide > Install > Windows']);
    expectWellFormed(doc);
  });

  it('uses plain heading text', () => {
    const doc = chunk(
      [
        '# **Bold** _em_ `code` [link](https://example.com) ![alt text](img.png) ~~gone~~',
        'a',
        '## Escaped \\*stars\\* &amp; entities &lt;tag&gt;',
        'b',
        '## my_snake_case and 2 * 3 * 4',
        'c',
        '## See [the reference][ref] <span>inline html</span>',
        'd',
        '## Heading with closing hashes ##',
        'e',
        '',
        '[ref]: https://example.com/ref',
      ].join('\n\n'),
    );
    expect(paths(doc)).toEqual([
      'Guide > Bold em code link alt text gone',
      'Guide > Bold em code link alt text gone > Escaped *stars* & entities <tag>',
      'Guide > Bold em code link alt text gone > my_snake_case and 2 * 3 * 4',
      'Guide > Bold em code link alt text gone > See the reference inline html',
      'Guide > Bold em code link alt text gone > Heading with closing hashes',
    ]);
  });

  it('recognises setext headings and ignores non-headings', () => {
    const doc = chunk('Title One\n=========\n\nBody one.\n\nSub\n---\n\nBody two.\n\n#hashtag is not a heading\n');
    expect(paths(doc)).toEqual(['Guide > Title One', 'Guide > Title One > Sub']);
    expect(doc.parents[1]?.children[0]?.content).toContain('#hashtag is not a heading');
  });

  it('does not start sections at headings nested in quotes or lists', () => {
    const doc = chunk('# Top\n\n> # Quoted heading\n> text\n\n- # Item heading\n  more\n');
    expect(paths(doc)).toEqual(['Guide > Top']);
    expect(doc.parents[0]?.children[0]?.content).toContain('> # Quoted heading');
  });

  it('handles Unicode headings', () => {
    const doc = chunk('# 安装指南\n\n内容。\n\n## 🚀 Démarrage rapide\n\nTexte.\n\n## مقدمة\n\nنص.\n');
    expect(paths(doc)).toEqual(['Guide > 安装指南', 'Guide > 安装指南 > 🚀 Démarrage rapide', 'Guide > 安装指南 > مقدمة']);
  });
});

describe('parents and children', () => {
  const source = '# One\n\nFirst paragraph.\n\nSecond paragraph.\n\n## Two\n\n- a\n- b\n\n# Three\n\nEnd.\n';

  it('parent content is the section source including its heading line', () => {
    const doc = chunk(source);
    expect(doc.parents.map((parent) => parent.content)).toEqual([
      '# One\n\nFirst paragraph.\n\nSecond paragraph.',
      '## Two\n\n- a\n- b',
      '# Three\n\nEnd.',
    ]);
  });

  it('children hold the body without the heading line', () => {
    const doc = chunk(source);
    expect(doc.parents.map((parent) => parent.children.map((child) => child.content))).toEqual([
      ['First paragraph.\n\nSecond paragraph.'],
      ['- a\n- b'],
      ['End.'],
    ]);
  });

  it('numbers parents and children in document order with a global child counter', () => {
    const long = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const doc = chunk(`# A\n\n${long}\n\n# B\n\n${long}\n`, { maxChildTokens: 50 });
    expectWellFormed(doc, 50);
    expect(doc.parents).toHaveLength(2);
    expect(childrenOf(doc).map((child) => child.ordinal)).toEqual(childrenOf(doc).map((_, i) => i));
    expect(doc.parents[1]?.children[0]?.ordinal).toBe(doc.parents[0]?.children.length);
  });

  it('merges small adjacent blocks up to the limit', () => {
    const doc = chunk('Para one.\n\nPara two.\n\n- item\n\n> quote\n\n---\n\nPara three.\n');
    expect(childrenOf(doc)).toHaveLength(1);
    expect(childrenOf(doc)[0]?.content).toBe('Para one.\n\nPara two.\n\n- item\n\n> quote\n\n---\n\nPara three.');
  });

  it('never produces whitespace-only children', () => {
    const doc = chunk('# A\n\n   \n\n<!-- -->\n\n# B\n\n\u00a0\n');
    expectWellFormed(doc);
    for (const child of childrenOf(doc)) expect(child.content.trim()).not.toBe('');
  });
});

describe('code blocks', () => {
  it('keeps fenced code intact, including lines that look like headings', () => {
    const code = '```bash\n# Install the package\napt-get install hugo\n\n# Check\nhugo version\n```';
    const doc = chunk(`# Setup\n\nRun:\n\n${code}\n\nDone.\n`);
    expect(paths(doc)).toEqual(['Guide > Setup']);
    expect(childrenOf(doc).some((child) => child.content.includes(code))).toBe(true);
    const tilde = chunk('~~~\n# not a heading\n~~~\n');
    expect(paths(tilde)).toEqual(['Guide']);
  });

  it('does not split a code block that fits, even when the previous block fills a chunk', () => {
    const prose = Array.from({ length: 12 }, (_, i) => `Word group number ${i} here.`).join(' ');
    const code = '```js\n' + Array.from({ length: 6 }, (_, i) => `const value${i} = ${i};`).join('\n') + '\n```';
    const doc = chunk(`${prose}\n\n${code}\n`, { maxChildTokens: 80 });
    expectWellFormed(doc, 80);
    expect(childrenOf(doc).some((child) => child.content.includes(code))).toBe(true);
  });

  it('splits a huge code block at line boundaries and re-adds the fences', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `    result_${i} = compute(input_${i}, flag=True)  # step ${i}`);
    const doc = chunk(`Intro.\n\n\`\`\`python\n${lines.join('\n')}\n\`\`\`\n`, { maxChildTokens: 120 });
    expectWellFormed(doc, 120);
    const pieces = childrenOf(doc).filter((child) => child.content.startsWith('```python\n'));
    expect(pieces.length).toBeGreaterThan(5);
    const body: string[] = [];
    for (const piece of pieces) {
      expect(piece.content.endsWith('\n```')).toBe(true);
      body.push(...piece.content.split('\n').slice(1, -1));
    }
    expect(body).toEqual(lines);
  });

  it('splits indented code at line boundaries', () => {
    const lines = Array.from({ length: 120 }, (_, i) => `    indented code line number ${i};`);
    const doc = chunk(`Text.\n\n${lines.join('\n')}\n`, { maxChildTokens: 60 });
    expectWellFormed(doc, 60);
    const all = childrenOf(doc).map((child) => child.content).join('\n');
    for (const line of lines) expect(all).toContain(line.trim());
  });
});

describe('tables', () => {
  const header = '| Name | Type | Description |\n|------|------|-------------|';
  const rows = Array.from({ length: 60 }, (_, i) => `| field${i} | string | The value of field number ${i}. |`);

  it('keeps a small table intact', () => {
    const table = `${header}\n${rows.slice(0, 3).join('\n')}`;
    const doc = chunk(`Fields:\n\n${table}\n`);
    expect(childrenOf(doc).some((child) => child.content.includes(table))).toBe(true);
  });

  it('splits a big table at row boundaries and repeats the header', () => {
    const doc = chunk(`${header}\n${rows.join('\n')}\n`, { maxChildTokens: 100 });
    expectWellFormed(doc, 100);
    const children = childrenOf(doc);
    expect(children.length).toBeGreaterThan(3);
    const seen: string[] = [];
    for (const child of children) {
      expect(child.content.startsWith(`${header}\n`)).toBe(true);
      seen.push(...child.content.split('\n').slice(2));
    }
    expect(seen).toEqual(rows);
  });
});

describe('lists', () => {
  it('splits long lists at item boundaries', () => {
    const items = Array.from({ length: 40 }, (_, i) => `- Item ${i}: configure the option number ${i} carefully.`);
    const doc = chunk(items.join('\n') + '\n', { maxChildTokens: 60 });
    expectWellFormed(doc, 60);
    const lines = childrenOf(doc).flatMap((child) => child.content.split('\n'));
    expect(lines).toEqual(items);
  });

  it('opens up an oversized item into its blocks, keeping the marker on the first', () => {
    const long = Array.from({ length: 20 }, (_, i) => `Detail sentence ${i} about this step.`).join(' ');
    const doc = chunk(`1. First step\n\n   ${long}\n\n2. Second step\n`, { maxChildTokens: 60 });
    expectWellFormed(doc, 60);
    expect(childrenOf(doc)[0]?.content.startsWith('1. First step')).toBe(true);
    expect(childrenOf(doc).at(-1)?.content).toContain('2. Second step');
  });

  it('keeps block quote markers on chunks that start inside a quote', () => {
    const paragraph = (n: number): string => `> Quoted paragraph ${n} with quite a few words in it to fill space.`;
    const doc = chunk([paragraph(1), '>', paragraph(2), '>', paragraph(3)].join('\n') + '\n', { maxChildTokens: 20 });
    expectWellFormed(doc, 20);
    for (const child of childrenOf(doc)) expect(child.content.startsWith('> ')).toBe(true);
  });
});

describe('prose', () => {
  it('splits a long paragraph at sentence boundaries', () => {
    const sentences = Array.from(
      { length: 40 },
      (_, i) => `This is sentence ${i}, which talks about configuration e.g. the base URL and the theme.`,
    );
    const doc = chunk(sentences.join(' ') + '\n', { maxChildTokens: 80 });
    expectWellFormed(doc, 80);
    const children = childrenOf(doc);
    expect(children.length).toBeGreaterThan(3);
    for (const child of children) {
      expect(child.content.endsWith('.')).toBe(true);
      expect(child.content.startsWith('This is sentence')).toBe(true);
    }
    expect(children.map((child) => child.content).join(' ')).toBe(sentences.join(' '));
  });

  it('avoids a tiny last piece by balancing the split', () => {
    const sentences = Array.from({ length: 11 }, (_, i) => `Sentence ${i} has exactly some words.`);
    const doc = chunk(sentences.join(' '), { maxChildTokens: 60 });
    const counts = childrenOf(doc).map((child) => child.tokenCount);
    expect(Math.min(...counts)).toBeGreaterThan(Math.max(...counts) / 3);
  });

  it('splits CJK text at 。！？', () => {
    const sentences = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? `这是第${i}个句子。` : i % 3 === 1 ? `真的吗${i}？` : `太好了${i}！`));
    const doc = chunk(sentences.join(''), { maxChildTokens: 40 });
    expectWellFormed(doc, 40);
    for (const child of childrenOf(doc)) expect(child.content).toMatch(/[。！？]$/);
    expect(childrenOf(doc).map((child) => child.content).join('')).toBe(sentences.join(''));
  });

  it('splits text without sentence boundaries at spaces, and a giant word at characters', () => {
    const words = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');
    const byWords = chunk(words, { maxChildTokens: 50 });
    expectWellFormed(byWords, 50);
    expect(childrenOf(byWords).map((child) => child.content).join(' ')).toBe(words);

    const giant = 'x'.repeat(5_000) + '日本語'.repeat(300) + '😀'.repeat(300);
    const byChars = chunk(giant, { maxChildTokens: 50 });
    expectWellFormed(byChars, 50);
    expect(childrenOf(byChars).map((child) => child.content).join('')).toBe(giant);
  });

  it('preserves Unicode text (CJK, emoji, RTL)', () => {
    const content = '# Intro\n\n日本語のテキストです。😀👍🏽 👨‍👩‍👧 مرحبا بالعالم — שלום עולם.\n';
    const doc = chunk(content);
    expect(childrenOf(doc)[0]?.content).toBe('日本語のテキストです。😀👍🏽 👨‍👩‍👧 مرحبا بالعالم — שלום עולם.');
  });
});

describe('options', () => {
  const long = Array.from({ length: 200 }, (_, i) => `Sentence ${i} is about something.`).join(' ');

  it('respects maxChildTokens', () => {
    const small = chunk(long, { maxChildTokens: 40 });
    const large = chunk(long, { maxChildTokens: 500 });
    expectWellFormed(small, 40);
    expectWellFormed(large, 500);
    expect(childrenOf(small).length).toBeGreaterThan(childrenOf(large).length);
  });

  it('falls back to defaults for invalid values', () => {
    const reference = chunk(long);
    expect(chunk(long, { maxChildTokens: Number.NaN })).toEqual(reference);
    expect(chunk(long, { maxChildTokens: -5 }).parents[0]?.children.every((child) => child.tokenCount <= 16)).toBe(true);
  });

  it('merges children smaller than minChildTokens into a neighbour when they fit', () => {
    const content = '- ' + 'alpha '.repeat(45).trim() + '\n\n' + '> ' + 'beta '.repeat(10).trim() + '\n\n```\ncode\n```\n';
    const withMin = chunk(content, { maxChildTokens: 60, minChildTokens: 20 });
    const withoutMin = chunk(content, { maxChildTokens: 60, minChildTokens: 0 });
    expectWellFormed(withMin, 60);
    expectWellFormed(withoutMin, 60);
    expect(childrenOf(withMin).length).toBeLessThanOrEqual(childrenOf(withoutMin).length);
  });
});

describe('determinism', () => {
  it('returns identical output for identical input', () => {
    const content = [
      '---',
      'title: Determinism',
      '---',
      '# A',
      '',
      Array.from({ length: 50 }, (_, i) => `Line ${i} of text.`).join(' '),
      '',
      '| a | b |',
      '|---|---|',
      ...Array.from({ length: 30 }, (_, i) => `| ${i} | ${i * 2} |`),
      '',
      '## B',
      '',
      '```',
      ...Array.from({ length: 40 }, (_, i) => `code ${i}`),
      '```',
    ].join('\n');
    const first = JSON.stringify(chunk(content, { maxChildTokens: 64 }));
    chunk('# unrelated\n\nwarm-up', { maxChildTokens: 64 });
    const second = JSON.stringify(chunk(content, { maxChildTokens: 64 }));
    expect(second).toBe(first);
  });
});

describe('HTML', () => {
  it('does not treat headings inside HTML comments or blocks as sections', () => {
    const doc = chunk('# Real\n\n<!--\n# commented out\n\nstill comment\n-->\n\n<div>\n# inside html\n</div>\n\nAfter.\n');
    expect(paths(doc)).toEqual(['Guide > Real']);
    expectWellFormed(doc);
  });

  it('keeps HTML comments out of every chunk, as rendered Markdown does, and the blocks around them one blank line apart', () => {
    const source = [
      '# Menus',
      '',
      '<!--',
      'This list intentionally excludes `pageRef`. Add those properties manually.',
      '-->',
      '',
      'Set `name` to the text of the entry.',
      '',
      '<!-- markdownlint-disable MD007 --> <!-- another -->',
      '',
      '```html',
      '<!-- a comment in an example stays -->',
      '<nav></nav>',
      '```',
      '',
      '<!-- unclosed comment runs to the end of its block',
      '',
      'Last words.',
      '',
    ].join('\n');
    const doc = chunk(source);
    expectWellFormed(doc);
    const children = childrenOf(doc).map((c) => c.content).join('\n---\n');
    expect(children).not.toContain('intentionally excludes');
    expect(children).not.toContain('markdownlint');
    expect(children).toContain('<!-- a comment in an example stays -->');
    expect(children).toContain('Set `name` to the text of the entry.');
    expect(doc.parents.map((p) => p.content)).toEqual([
      '# Menus\n\nSet `name` to the text of the entry.\n\n```html\n<!-- a comment in an example stays -->\n<nav></nav>\n```\n\n<!-- unclosed comment runs to the end of its block\n\nLast words.',
    ]);
    // A section of nothing but a comment makes no chunk.
    expect(paths(chunk('# A\n\nText.\n\n## B\n\n<!-- todo: write this -->\n'))).toEqual(['Guide > A']);
  });
});

describe('blocks that only point elsewhere', () => {
  it('make no child chunk of their own, and stay in their section', () => {
    const doc = chunk(
      '# Menus\n\nMenus are lists of links.\n\n## Define in project configuration\n\nSee [configure menus][].\n\n## Render\n\nUse the menus method in a template.\n\n[configure menus]: /configuration/menus/\n',
    );
    expect(paths(doc)).toEqual(['Guide > Menus', 'Guide > Menus > Render']);
    const contents = childrenOf(doc).map((c) => c.content);
    // A definition beside other text stays with it.
    expect(contents).toEqual(['Menus are lists of links.', 'Use the menus method in a template.\n\n[configure menus]: /configuration/menus/']);
    expectWellFormed(doc);
  });

  it('recognises pointers, definitions and lone headings, and nothing that says something', () => {
    for (const pointer of [
      'See [configure menus][].',
      'See [_page kind_](g).',
      'See the [`css.PostCSS`](/functions/css/postcss/) function.',
      'For more information, see [the guide](/guide/).',
      '[taxonomies]: /content-management/taxonomies/',
      '[a]: /x\n[b]: <https://example.com/y> "Title"',
      '### Lone heading',
    ]) {
      expect(isPointerOnly(pointer), pointer).toBe(true);
    }
    for (const text of [
      'Hugo provides two methods to localize your menu entries. See [multilingual][].',
      'Use the [menus](/x) method to render a menu.',
      'See the docs.',
      'See [menus](/m): each entry needs a name and a weight.',
      'An _ugly URL_ is a URL that includes a file extension.',
      '[x]: /y\nAnd some text.',
    ]) {
      expect(isPointerOnly(text), text).toBe(false);
    }
  });

  it('keeps a pointer that shares its section with other text, and drops a section that is only pointers', () => {
    const mixed = chunk('## Localize\n\nThere are two methods to localize menu entries.\n\nSee [multilingual][].\n');
    expect(childrenOf(mixed).map((c) => c.content)).toEqual(['There are two methods to localize menu entries.\n\nSee [multilingual][].']);
    expect(chunk('## Only pointers\n\nSee [a](/a).\n\n[b]: /b\n').parents).toEqual([]);
    expect(chunk('## Only definitions\n\n[a]: /a\n[b]: /b\n').parents).toEqual([]);
  });

  it('is version 4 of the splitting, so stored documents are split again on their next ingest', () => {
    expect(CHUNKER_VERSION).toBe('md-hier-4');
  });
});
