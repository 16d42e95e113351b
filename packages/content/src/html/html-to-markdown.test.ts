import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from './index.ts';

const page = (body: string, head = '<title>Test page</title>'): string =>
  `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

const markdownOf = (body: string, baseUrl?: string): string =>
  htmlToMarkdown(page(body), baseUrl === undefined ? {} : { baseUrl }).markdown;

describe('main content extraction', () => {
  const chrome = `
    <div id="cookie-banner">We use cookies to improve your experience.</div>
    <header><a href="/">Logo</a><h1>Site name</h1></header>
    <nav><ul><li><a href="/docs">Docs</a></li><li><a href="/blog">Blog</a></li></ul></nav>
    <aside>Related: other things</aside>
    <div class="sidebar">Sidebar links</div>
    <ol class="breadcrumb"><li>Home</li><li>Docs</li></ol>
    <script>var tracking = "script text";</script>
    <style>.x { color: red }</style>
    <noscript>Please enable JavaScript</noscript>
    <footer>Copyright footer text</footer>`;

  it('keeps <main> and drops nav, header, footer, aside, scripts and chrome classes', () => {
    const markdown = markdownOf(`${chrome}<main><h2>Install</h2><p>Run the installer.</p></main>`);
    expect(markdown).toBe('## Install\n\nRun the installer.\n');
  });

  it('drops the same chrome when falling back to <body>', () => {
    const markdown = markdownOf(`${chrome}<div class="content"><h2>Body content</h2><p>Text of the page.</p></div>`);
    expect(markdown).toBe('## Body content\n\nText of the page.\n');
    for (const gone of ['cookies', 'Logo', 'Site name', 'Docs', 'Related', 'Sidebar', 'script text', 'color', 'JavaScript', 'footer']) {
      expect(markdown).not.toContain(gone);
    }
  });

  it('on a page without landmarks, keeps the article Readability finds rather than the whole body', () => {
    // A single-page app: nothing but generated class names, no <main>, <article> or <nav>.
    const links = Array.from({ length: 40 }, (_, n) => `<li><a href="/p${n}/">Guide page ${n}</a></li>`).join('');
    const prose = Array.from(
      { length: 6 },
      (_, n) => `<p>Paragraph ${n} explains how the cache keeps pages, how long they stay, and what happens when a page changes, in enough words.</p>`,
    ).join('');
    const markdown = markdownOf(
      `<div class="css-1a"><div class="css-2b"><ul>${links}</ul></div>` +
        `<div class="css-3c"><h2>Caching</h2>${prose}<pre><code class="language-toml">[caches]\nmaxAge = -1\n</code></pre></div>` +
        `<div class="css-4d"><span>Was this page helpful?</span><button>Yes</button></div></div>`,
    );
    expect(markdown.startsWith('## Caching\n\nParagraph 0 explains')).toBe(true);
    expect(markdown).toContain('```toml\n[caches]\nmaxAge = -1\n```');
    expect(markdown).not.toContain('Guide page');
    expect(markdown).not.toContain('helpful');
  });

  it('drops hidden elements: hidden, aria-hidden, display:none, visibility:hidden', () => {
    const markdown = markdownOf(`<main>
      <p>Visible.</p>
      <div hidden>hidden attribute</div>
      <span aria-hidden="true">aria hidden</span>
      <div style="color: red; display : none">display none</div>
      <p style="visibility:hidden !important">visibility hidden</p>
      <div aria-hidden="false">aria visible</div>
    </main>`);
    expect(markdown).toContain('Visible.');
    expect(markdown).toContain('aria visible');
    expect(markdown).not.toMatch(/hidden attribute|aria hidden|display none|visibility hidden/);
  });

  it('keeps main content inside an aria-hidden wrapper (a page saved with a modal open)', () => {
    const markdown = markdownOf('<div aria-hidden="true"><nav>Menu</nav><main><p>The content.</p></main></div><div role="dialog">Subscribe!</div>');
    expect(markdown).toBe('The content.\n');
  });

  it('drops form controls, iframes, svg and templates but keeps the text around them', () => {
    const markdown = markdownOf(`<main><p>Before.</p>
      <form><label for="q">Search the docs</label><input id="q" value="query"><button>Go</button>
      <select><option>Option text</option></select><textarea>Textarea text</textarea></form>
      <iframe src="https://example.com/embed"></iframe>
      <svg><title>Icon title</title><text>SVG text</text></svg>
      <template><p>Template text</p></template>
      <p>After.</p></main>`);
    expect(markdown).toBe('Before.\n\nAfter.\n');
  });

  it('only removes chrome by whole class / id tokens', () => {
    const markdown = markdownOf(`<main>
      <div class="has-sidebar layout">Kept: has-sidebar</div>
      <div class="menu-item-description">Kept: menu-item</div>
      <div class="Sidebar">Dropped: sidebar</div>
      <div id="toc">Dropped: toc</div>
      <div class="cookie-consent-banner">Dropped: cookie</div>
      <div role="navigation">Dropped: role</div>
    </main>`);
    expect(markdown).toContain('Kept: has-sidebar');
    expect(markdown).toContain('Kept: menu-item');
    expect(markdown).not.toContain('Dropped');
  });

  it('does not drop chrome-named wrappers that hold the main content', () => {
    const markdown = markdownOf(`<div class="menu"><article><h2>Story</h2><p>The article text is long enough.</p></article></div>`);
    expect(markdown).toContain('The article text is long enough.');
  });

  it('prefers the largest <article> when there are several', () => {
    const long = 'This is the main story with a lot more words in it than the teaser. '.repeat(5);
    const markdown = markdownOf(`<article><p>Short teaser.</p></article><article><p>${long}</p></article>`);
    expect(markdown).toContain('main story');
    expect(markdown).not.toContain('Short teaser');
  });

  it('prefers [role=main] over <article>, and <main> over both', () => {
    const mainFirst = markdownOf(
      '<div role="main"><p>Role main text here.</p></div><main><p>Main element text.</p></main><article><p>Article.</p></article>',
    );
    expect(mainFirst).toBe('Main element text.\n');
    const roleMain = markdownOf('<article><p>Article.</p></article><div role="main"><p>Role main text here.</p></div>');
    expect(roleMain).toBe('Role main text here.\n');
  });

  it('falls back to <body> when the landmark holds a small part of the text', () => {
    const text = 'Most of the page text lives outside the article element. '.repeat(10);
    const markdown = markdownOf(`<article><p>One comment.</p></article><div><p>${text}</p></div>`);
    expect(markdown).toContain('One comment.');
    expect(markdown).toContain('Most of the page text');
  });

  it('returns empty Markdown for a page without content', () => {
    expect(htmlToMarkdown('').markdown).toBe('');
    expect(htmlToMarkdown(page('<nav><a href="/">Home</a></nav><script>x()</script>')).markdown).toBe('');
  });
});

describe('title', () => {
  it('comes from <title>, whitespace collapsed and entities decoded', () => {
    const doc = htmlToMarkdown(page('<h1>Heading</h1>', '<title>\n  Docs &amp;   Guides\n</title>'));
    expect(doc.title).toBe('Docs & Guides');
  });

  it('falls back to og:title, then to the first h1', () => {
    expect(htmlToMarkdown(page('<h1>Heading</h1>', '<meta property="og:title" content="Open Graph title">')).title).toBe(
      'Open Graph title',
    );
    expect(htmlToMarkdown(page('<p>x</p><h1>First <em>heading</em></h1><h1>Second</h1>', '')).title).toBe('First heading');
  });

  it('is null when the page has none (an SVG title does not count)', () => {
    const doc = htmlToMarkdown(page('<svg><title>Icon</title></svg><p>Just text.</p>', ''));
    expect(doc.title).toBeNull();
    expect(doc.markdown).toBe('Just text.\n');
    expect(htmlToMarkdown('<p>fragment</p>').title).toBeNull();
  });
});

describe('Markdown output', () => {
  it('writes ATX headings', () => {
    expect(markdownOf('<main><h1>One</h1><h2>Two</h2><h3>Three <strong>bold</strong></h3><h6>Six</h6></main>')).toBe(
      '# One\n\n## Two\n\n### Three **bold**\n\n###### Six\n',
    );
  });

  it('drops heading permalinks and all-bold heading markup', () => {
    expect(markdownOf('<main><h2><strong>Setup</strong> <a href="#setup" class="anchor">#</a></h2></main>')).toBe('## Setup\n');
  });

  it('writes lists with - bullets, nested and ordered', () => {
    const markdown = markdownOf(`<main><ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>
      <p>Then:</p><ol><li>first</li><li>second</li></ol>
      <ul><li><input type="checkbox" checked disabled> done</li><li><input type="checkbox" disabled> todo</li></ul></main>`);
    expect(markdown).toBe('- one\n  - nested\n- two\n\nThen:\n\n1. first\n2. second\n\n- [x] done\n- [ ] todo\n');
  });

  it('makes relative links absolute against baseUrl', () => {
    const markdown = markdownOf(
      `<main><p><a href="install.html">rel</a> <a href="/root">root</a> <a href="../up#frag">up</a>
      <a href="https://other.org/x">abs</a> <a href="mailto:a@b.c">mail</a> <a href="#local">local</a></p></main>`,
      'https://docs.example.com/guide/start/page.html',
    );
    expect(markdown).toContain('[rel](https://docs.example.com/guide/start/install.html)');
    expect(markdown).toContain('[root](https://docs.example.com/root)');
    expect(markdown).toContain('[up](https://docs.example.com/guide/up#frag)');
    expect(markdown).toContain('[abs](https://other.org/x)');
    expect(markdown).toContain('[mail](mailto:a@b.c)');
    expect(markdown).toContain('[local](https://docs.example.com/guide/start/page.html#local)');
  });

  it('honours <base href>, keeps links relative without a base, and unwraps script links', () => {
    const withBase = htmlToMarkdown(page('<main><a href="x.html">x</a></main>', '<base href="/v2/">'), {
      baseUrl: 'https://example.com/a/b',
    });
    expect(withBase.markdown).toBe('[x](https://example.com/v2/x.html)\n');
    expect(markdownOf('<main><p><a href="x.html">x</a> <a href="javascript:alert(1)">js</a> <a>no href</a></p></main>')).toBe(
      '[x](x.html) js no href\n',
    );
    expect(markdownOf('<main><a href="x.html">x</a></main>', 'not a url')).toBe('[x](x.html)\n');
  });

  it('writes GFM tables', () => {
    const markdown = markdownOf(`<main><table>
      <thead><tr><th>Name</th><th>Type</th></tr></thead>
      <tbody><tr><td>id</td><td><code>string</code></td></tr><tr><td>a|b</td><td>pipe</td></tr></tbody>
    </table></main>`);
    expect(markdown).toBe('| Name | Type     |\n| ---- | -------- |\n| id   | `string` |\n| a\\|b | pipe     |\n');
  });

  it('unwraps layout tables', () => {
    const markdown = markdownOf(
      '<main><table><tr><td><h2>Title</h2><p>Layout cell text.</p></td><td><p>Second column.</p></td></tr></table></main>',
    );
    expect(markdown).toBe('## Title\n\nLayout cell text.\n\nSecond column.\n');
  });

  it('keeps the language of code blocks from the usual class names', () => {
    const markdown = markdownOf(`<main>
      <pre><code class="language-typescript">const x: number = 1;
if (x &lt; 2) {}
</code></pre>
      <pre class="lang-py">print("hi")</pre>
      <div class="highlight highlight-source-shell"><pre><span class="pl-k">ls</span> -la</pre></div>
      <pre><code data-lang="go">package main</code></pre>
      <pre>no language
  indented</pre>
      <p>Inline <code>code</code>.</p></main>`);
    expect(markdown).toBe(
      [
        '```typescript\nconst x: number = 1;\nif (x < 2) {}\n```',
        '```py\nprint("hi")\n```',
        '```shell\nls -la\n```',
        '```go\npackage main\n```',
        '```\nno language\n  indented\n```',
        'Inline `code`.\n',
      ].join('\n\n'),
    );
  });

  it('keeps code containing fences intact', () => {
    const markdown = markdownOf('<main><pre><code class="language-md">```js\nx\n```</code></pre></main>');
    expect(markdown).toBe('````md\n```js\nx\n```\n````\n');
  });

  it('writes blockquotes, rules and emphasis', () => {
    expect(markdownOf('<main><blockquote><p>Quoted <em>text</em>.</p></blockquote><hr><p><s>old</s> <b>new</b></p></main>')).toBe(
      '> Quoted _text_.\n\n---\n\n~~old~~ **new**\n',
    );
  });

  it('renders images as their alt text and drops images without one', () => {
    expect(markdownOf('<main><p>See <img src="a.png" alt="the  diagram"> and <img src="b.png">.</p><img src="c.png" alt=""></main>')).toBe(
      'See the diagram and .\n',
    );
  });

  it('decodes entities, keeps non-ASCII text, and escapes Markdown syntax in text', () => {
    const markdown = markdownOf(
      '<main><p>&amp; &lt;tag&gt; &copy; &eacute;&#233;&#x1F600; — 中文 עברית Ελληνικά</p><p>*not emphasis* and # not a heading</p></main>',
    );
    expect(markdown).toBe('& \\<tag> © éé😀 — 中文 עברית Ελληνικά\n\n\\*not emphasis\\* and # not a heading\n');
  });

  it('flattens emphasis nested in emphasis', () => {
    expect(markdownOf('<main><p><b>outer <b>inner</b> <strong>more</strong></b></p></main>')).toBe('**outer inner more**\n');
  });
});
