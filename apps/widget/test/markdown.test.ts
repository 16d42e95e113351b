import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown, safeHref, type MdElement, type MdNode } from '../src/markdown.ts';

/** Every element of a tree, depth first. */
function elements(nodes: readonly MdNode[]): MdElement[] {
  return nodes.flatMap((node) => (typeof node === 'string' ? [] : [node, ...elements(node.children)]));
}

/** The text of a tree, as a reader would see it. */
function text(nodes: readonly MdNode[]): string {
  return nodes.map((node) => (typeof node === 'string' ? node : text(node.children))).join('');
}

/** A compact form of a tree for structural assertions: tag(children) and "text". */
function shape(nodes: readonly MdNode[]): string {
  return nodes.map((node) => (typeof node === 'string' ? JSON.stringify(node) : `${node.tag}${node.attrs ? JSON.stringify(node.attrs) : ''}(${shape(node.children)})`)).join(' ');
}

const ALLOWED_TAGS = new Set(['p', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong', 'em', 'del', 'a', 'br']);

describe('safeHref', () => {
  it('keeps http(s), protocol-relative and relative addresses', () => {
    for (const url of ['https://docs.example.com/a#b', 'http://x.test', 'HTTPS://X.TEST', '//cdn.example.com/x', '/guide/install', './x', '../y', '#anchor', 'page.html?q=1']) {
      expect(safeHref(url)).toBe(url);
    }
  });

  it('refuses every other scheme, however it is spelt', () => {
    for (const url of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'java\tscript:alert(1)', 'java\nscript:alert(1)', '\u0001javascript:x', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', 'mailto:a@b.c', 'file:///etc/passwd', '']) {
      expect(safeHref(url), url).toBeUndefined();
    }
  });
});

describe('parseMarkdown with hostile input', () => {
  const hostile = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    'Hello <b onmouseover="alert(1)">world</b>',
    '[click](javascript:alert(1))',
    '[click](  javascript:alert(1) "title")',
    '![x](javascript:alert(1))',
    '<javascript:alert(1)>',
    '[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '```html\n<script>alert(1)</script>\n```',
    '`<iframe src=//evil>`',
    '| a | b |\n|---|---|\n| <svg onload=alert(1)> | [x](vbscript:msgbox) |',
    '> <style>*{display:none}</style>',
    '- <a href="javascript:alert(1)">x</a>\n- **<img src=x>**',
    '&lt;script&gt; &#x3C;script&#x3E;',
    '[x](https://ok.example/"onmouseover="alert(1))',
  ];

  it.each(hostile)('keeps %j as text, with only known elements and safe links', (input) => {
    const tree = parseMarkdown(input);
    for (const element of elements(tree)) {
      expect(ALLOWED_TAGS.has(element.tag), element.tag).toBe(true);
      for (const name of Object.keys(element.attrs ?? {})) expect(['href', 'start', 'align', 'lang']).toContain(name);
      if (element.tag === 'a') {
        expect(element.attrs?.href).toBeDefined();
        expect(safeHref(element.attrs!.href!)).toBe(element.attrs!.href);
      }
    }
    // Markup in the text stays visible as text: nothing of it is lost or turned into elements.
    const tags = input.match(/<[a-z]+/gi) ?? [];
    for (const tag of tags) expect(text(tree)).toContain(tag);
  });

  it('shows an unsafe link as its text, not as a link', () => {
    expect(shape(parseMarkdown('[click me](javascript:alert(1))'))).toBe('p(em("click me"))');
    expect(shape(parseMarkdown('[click](<javascript:alert(1)>)'))).toBe('p(em("click"))');
  });

  it('bounds nesting and finishes quickly on pathological input', () => {
    const deep = `${'> '.repeat(5_000)}x\n${'- '.repeat(5_000)}y\n${'*'.repeat(20_000)}\n${'['.repeat(10_000)}](x)\n${'`'.repeat(10_000)}`;
    const tree = parseMarkdown(deep);
    expect(text(tree)).toContain('x');
    expect(elements(tree).length).toBeLessThan(200);
  });
});

describe('parseMarkdown', () => {
  it('parses what answers hold', () => {
    const answer = [
      '## Install',
      '',
      'Run **`pnpm install`**, then *start* it: see [the guide](https://docs.example.com/start#run) or https://x.example/a.',
      '',
      '1. First',
      '2. Second',
      '   - nested `a`',
      '   - nested b',
      '3. Third',
      '',
      '```sh',
      'pnpm start   # <here>',
      '```',
      '',
      '| Setting | Default |',
      '|:--|--:|',
      '| `PORT` | 3000 |',
      '',
      '> Note: ~~old~~ new',
      '',
      '---',
      'Line one  ',
      'line two',
    ].join('\n');
    expect(shape(parseMarkdown(answer))).toBe(
      [
        'h4("Install")',
        'p("Run " strong(code("pnpm install")) ", then " em("start") " it: see " a{"href":"https://docs.example.com/start#run"}("the guide") " or " a{"href":"https://x.example/a"}("https://x.example/a") ".")',
        'ol(li("First") li("Second" ul(li("nested " code("a")) li("nested b"))) li("Third"))',
        'pre{"lang":"sh"}(code("pnpm start   # <here>"))',
        'table(thead(tr(th{"align":"left"}("Setting") th{"align":"right"}("Default"))) tbody(tr(td{"align":"left"}(code("PORT")) td{"align":"right"}("3000"))))',
        'blockquote(p("Note: " del("old") " new"))',
        'hr()',
        'p("Line one" br() "line two")',
      ].join(' '),
    );
  });

  it('renders a half-written answer as it stands (an open fence is code)', () => {
    expect(shape(parseMarkdown('Try:\n\n```js\nconst a = 1;'))).toBe('p("Try:") pre{"lang":"js"}(code("const a = 1;"))');
    expect(shape(parseInline('a **b'))).toBe('"a **b"');
  });

  it('keeps underscores inside words and escaped characters literal', () => {
    expect(shape(parseInline('Set KB_ADMIN_PASSWORD and \\*not italics\\* or snake_case_name'))).toBe('"Set KB_ADMIN_PASSWORD and *not italics* or snake_case_name"');
  });

  it('numbers an ordered list from its first number and separates loose items', () => {
    expect(shape(parseMarkdown('3. a\n\n4. b'))).toBe('ol{"start":"3"}(li(p("a")) li(p("b")))');
    expect(shape(parseMarkdown('- a\n- b\n\nafter'))).toBe('ul(li("a") li("b")) p("after")');
  });
});
