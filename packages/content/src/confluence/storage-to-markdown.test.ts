import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Heading, List, ListItem, Nodes, Root, Table } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../chunking/index.ts';
import { escapeHtml } from '../html/elements.ts';
import { STORAGE_CONVERTER_VERSION, storageToMarkdown } from './storage-to-markdown.ts';

const md = (storage: string, baseUrl?: string): string => storageToMarkdown(storage, baseUrl === undefined ? {} : { baseUrl });

const parser = unified().use(remarkParse).use(remarkGfm).freeze();
const parse = (markdown: string): Root => parser.parse(markdown);

/** Text of an mdast subtree (code included). */
function text(node: Nodes): string {
  if (node.type === 'break') return '\n';
  if ('value' in node) return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(text).join('');
  return '';
}

const fixture = (name: string): string => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');

describe('public API', () => {
  it('has a version and converts empty input to nothing', () => {
    expect(STORAGE_CONVERTER_VERSION).toBe('wiki-storage-1');
    expect(md('')).toBe('');
    expect(md('   \n  ')).toBe('');
    expect(md('<p></p><p>&nbsp;</p><p><br /></p>')).toBe('');
  });

  it('ends the document with a single newline', () => {
    expect(md('<p>One.</p>')).toBe('One.\n');
  });
});

describe('blocks', () => {
  it('converts h1-h6 to ATX headings, dropping bold that the heading already implies', () => {
    const storage = [1, 2, 3, 4, 5, 6].map((level) => `<h${level}><strong>Level ${level}</strong></h${level}>`).join('');
    expect(md(storage)).toBe('# Level 1\n\n## Level 2\n\n### Level 3\n\n#### Level 4\n\n##### Level 5\n\n###### Level 6\n');
    const headings = parse(md(storage)).children as Heading[];
    expect(headings.map((heading) => [heading.type, heading.depth, text(heading)])).toEqual(
      [1, 2, 3, 4, 5, 6].map((level) => ['heading', level, `Level ${level}`]),
    );
  });

  it('drops empty headings and keeps a trailing # in the heading text', () => {
    expect(md('<h2> </h2><h2>Use C#</h2><h3>Issue #</h3>')).toBe('## Use C#\n\n### Issue \\#\n');
    expect(text(parse(md('<h3>Issue #</h3>')))).toBe('Issue #');
  });

  it('separates paragraphs by blank lines and collapses whitespace', () => {
    expect(md('<p>First\n   paragraph.</p>\n<p>  Second\tone. </p>')).toBe('First paragraph.\n\nSecond one.\n');
  });

  it('writes <br> as a hard line break, ignoring leading, trailing and repeated ones', () => {
    expect(md('<p><br/>one<br />two<br/><br/>three<br/></p>')).toBe('one\\\ntwo\\\nthree\n');
    const [paragraph] = parse(md('<p>one<br/>two</p>')).children;
    expect(paragraph?.type === 'paragraph' && paragraph.children.map((child) => child.type)).toEqual(['text', 'break', 'text']);
  });

  it('writes <hr> as a thematic break (never --- which could open front matter)', () => {
    expect(md('<hr/><p>Text</p><hr />')).toBe('***\n\nText\n\n***\n');
  });

  it('writes blockquotes', () => {
    expect(md('<blockquote><p>Quoted</p><p>Twice</p></blockquote>')).toBe('> Quoted\n>\n> Twice\n');
  });

  it('writes <pre> as a fenced block, with <br> as line breaks', () => {
    expect(md('<pre>line 1<br/>  line 2\n</pre>')).toBe('```\nline 1\n  line 2\n```\n');
  });

  it('treats inline content directly in containers as paragraphs', () => {
    expect(md('<div>Loose <b>text</b><p>Paragraph</p>more</div>')).toBe('Loose **text**\n\nParagraph\n\nmore\n');
  });
});

describe('inline formatting', () => {
  it('converts bold, italic, strikethrough, code, subscript and superscript', () => {
    expect(md('<p><strong>b</strong> <b>b</b> <em>i</em> <i>i</i> <del>d</del> <s>s</s> <code>c</code> H<sub>2</sub>O x<sup>2</sup></p>')).toBe(
      '**b** **b** *i* *i* ~~d~~ ~~s~~ `c` H<sub>2</sub>O x<sup>2</sup>\n',
    );
  });

  it('keeps whitespace outside emphasis markers and drops empty emphasis', () => {
    expect(md('<p>a<strong> bold </strong>b<em> </em>c<strong></strong></p>')).toBe('a **bold** b c\n');
  });

  it('does not double nested emphasis of the same kind', () => {
    expect(md('<p><strong>a <strong>b</strong> c</strong></p>')).toBe('**a b c**\n');
  });

  it('joins emphasis of the same kind written side by side', () => {
    const markdown = md('<p><b>a</b><b>b</b> <i>c</i><i>d</i> <del>e</del><del>f</del> <b>g</b><i>h</i> <b>i.</b><b>j</b>k</p>');
    expect(markdown).toBe('**ab** *cd* ~~ef~~ **g***h* **i.j**k\n');
    const [paragraph] = parse(markdown).children;
    expect(paragraph?.type === 'paragraph' && paragraph.children.map((child) => child.type)).toEqual([
      'strong', 'text', 'emphasis', 'text', 'delete', 'text', 'strong', 'emphasis', 'text', 'strong', 'text',
    ]);
  });

  it('writes emphasis CommonMark would not recognise as plain text rather than stray asterisks', () => {
    expect(md('<p>x<strong>(y)</strong>z and <strong>Note:</strong>text</p>')).toBe('x(y)z and Note:text\n');
    expect(md('<p><strong>Note:</strong> text</p>')).toBe('**Note:** text\n');
    const storage =
      '<p>x<b>😀</b>y <b>😀</b> <i>ok</i>😀 a<b>“q”</b>b <b>(a)</b> c<del>-d-</del>e <b><i>both</i></b>. ' +
      '<em><s>Note:</s></em>then <i>a<b>(b)</b></i>c <b>x:</b><i>y.</i>z <i>C#</i><b>it</b></p>';
    const root = parse(md(storage));
    expect(text(root)).toBe('x😀y 😀 ok😀 a“q”b (a) c-d-e both. Note:then a(b)c x:y.z C#it');
  });

  it('writes code spans with a fence longer than the backticks inside', () => {
    expect(md('<p><code>a `b` c</code> and <code>``</code></p>')).toBe('``a `b` c`` and ``` `` ```\n');
    const [paragraph] = parse(md('<p><code>a `b` c</code></p>')).children;
    expect(paragraph?.type === 'paragraph' && paragraph.children[0]).toMatchObject({ type: 'inlineCode', value: 'a `b` c' });
  });

  it('keeps code spans side by side apart', () => {
    const markdown = md('<p><code>a</code><code>b</code></p>');
    expect(markdown).toBe('`a` `b`\n');
    const [paragraph] = parse(markdown).children;
    expect(paragraph?.type === 'paragraph' && paragraph.children.filter((child) => child.type === 'inlineCode')).toHaveLength(2);
  });

  it('writes sub and sup around longer text as plain text', () => {
    expect(md('<p><sup>Try it now</sup></p>')).toBe('Try it now\n');
  });

  it('keeps the text of underline, spans, fonts and inline comment markers', () => {
    expect(
      md('<p><u>under</u> <span style="color: red">red</span> <ac:inline-comment-marker ac:ref="1">marked</ac:inline-comment-marker></p>'),
    ).toBe('under red marked\n');
  });
});

describe('lists', () => {
  it('converts nested bullet and ordered lists', () => {
    const storage = '<ul><li><p>One</p><ol><li>First</li><li>Second<ul><li>Deep</li></ul></li></ol></li><li>Two</li></ul>';
    expect(md(storage)).toBe('- One\n  1. First\n  2. Second\n     - Deep\n- Two\n');
    const list = parse(md(storage)).children[0] as List;
    expect(list.type).toBe('list');
    expect(list.children).toHaveLength(2);
    const nested = (list.children[0] as ListItem).children[1] as List;
    expect(nested).toMatchObject({ type: 'list', ordered: true });
  });

  it('keeps the start number of ordered lists', () => {
    expect(md('<ol start="3"><li>Three</li><li>Four</li></ol>')).toBe('3. Three\n4. Four\n');
  });

  it('keeps separate adjacent lists separate', () => {
    const markdown = md('<ul><li>a</li></ul><ul><li>b</li></ul><ol><li>c</li></ol><ol><li>d</li></ol>');
    expect(markdown).toBe('- a\n\n* b\n\n1. c\n\n1) d\n');
    expect(parse(markdown).children.map((node) => node.type)).toEqual(['list', 'list', 'list', 'list']);
  });

  it('puts a nested list written between items (invalid but common) under the item before it', () => {
    expect(md('<ul><li>Parent</li><ul><li>Child</li></ul><li>Next</li></ul>')).toBe('- Parent\n  - Child\n- Next\n');
  });

  it('indents every block of a multi-block item', () => {
    expect(md('<ul><li><p>Para one</p><p>Para two</p></li></ul>')).toBe('- Para one\n\n  Para two\n');
  });
});

describe('tables', () => {
  it('writes a GFM table with the th row as header', () => {
    const markdown = md('<table><tbody><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></tbody></table>');
    expect(markdown).toBe('| Name | Value |\n| --- | --- |\n| a | 1 |\n');
    const table = parse(markdown).children[0] as Table;
    expect(table.type).toBe('table');
    expect(table.children.map((row) => row.children.map(text))).toEqual([
      ['Name', 'Value'],
      ['a', '1'],
    ]);
  });

  it('uses the first row as header when there is no th, and reads thead / tbody / tfoot', () => {
    expect(md('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>')).toBe(
      '| a | b |\n| --- | --- |\n| c | d |\n',
    );
    expect(md('<table><thead><tr><th>H</th></tr></thead><tbody><tr><td>x</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>')).toBe(
      '| H |\n| --- |\n| x |\n| f |\n',
    );
  });

  it('escapes pipes, including in code spans', () => {
    const markdown = md('<table><tr><th>a|b</th><th><code>x | y</code></th></tr></table>');
    expect(markdown).toBe('| a\\|b | `x \\| y` |\n| --- | --- |\n');
    const table = parse(markdown).children[0] as Table;
    expect(table.children[0]?.children.map(text)).toEqual(['a|b', 'x | y']);
  });

  it('flattens block content in cells to one line', () => {
    const cell =
      '<td><h3>Title</h3><p>Para</p><ul><li>item 1</li><li>item 2</li></ul>' +
      '<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[let a = 1;\nlet b = 2;]]></ac:plain-text-body></ac:structured-macro>' +
      '<ac:structured-macro ac:name="info"><ac:rich-text-body><p>Note</p></ac:rich-text-body></ac:structured-macro></td>';
    const markdown = md(`<table><tr><th>Head</th><th>Other</th></tr><tr>${cell}<td>x</td></tr></table>`);
    expect(markdown).toBe(
      '| Head | Other |\n| --- | --- |\n| **Title**<br>Para<br>- item 1<br>- item 2<br>`let a = 1;`<br>`let b = 2;`<br>Note | x |\n',
    );
    expect((parse(markdown).children[0] as Table).children).toHaveLength(2);
  });

  it('flattens a table nested in a cell', () => {
    expect(md('<table><tr><th>Outer</th><th>B</th></tr><tr><td><table><tr><td>k</td><td>v</td></tr></table></td><td>y</td></tr></table>')).toBe(
      '| Outer | B |\n| --- | --- |\n| k \\| v | y |\n',
    );
  });

  it('tolerates colspan and rowspan, padding with empty cells', () => {
    const storage =
      '<table><tr><th colspan="2">Wide</th><th>C</th></tr>' +
      '<tr><td rowspan="2">Tall</td><td>b1</td><td>c1</td></tr>' +
      '<tr><td>b2</td><td>c2</td></tr>' +
      '<tr><td>short</td></tr></table>';
    expect(md(storage)).toBe('| Wide |  | C |\n| --- | --- | --- |\n| Tall | b1 | c1 |\n|  | b2 | c2 |\n| short |  |  |\n');
  });

  it('survives absurd spans', () => {
    const markdown = md('<table><tr><td colspan="99999999">a</td><td rowspan="-4">b</td></tr><tr><td>c</td></tr></table>');
    expect(markdown.split('\n')[0]?.split('|').length).toBe(102);
    expect(markdown).toContain('a');
    expect(markdown).toContain('b');
  });

  it('unwraps a single-cell table and drops rows left empty', () => {
    expect(md('<table><tr><td><p>Boxed</p><p>content</p></td></tr></table>')).toBe('Boxed\n\ncontent\n');
    expect(md('<table><tr><th>A</th><th>B</th></tr><tr><td><p /></td><td /></tr></table>')).toBe('| A | B |\n| --- | --- |\n');
  });

  it('writes the caption before the table', () => {
    expect(md('<table><caption>Limits</caption><tr><th>k</th></tr><tr><td>v</td></tr></table>')).toBe('Limits\n\n| k |\n| --- |\n| v |\n');
  });
});

describe('links', () => {
  const base = 'https://acme.atlassian.net/wiki';

  it('writes <a href> as Markdown links, relative ones made absolute against the base URL', () => {
    expect(md('<p><a href="https://example.com/a b">Example</a></p>')).toBe('[Example](https://example.com/a%20b)\n');
    expect(md('<p><a href="/wiki/spaces/ENG/pages/1">Page</a> <a href="spaces/X">Rel</a></p>', base)).toBe(
      '[Page](https://acme.atlassian.net/wiki/spaces/ENG/pages/1) [Rel](https://acme.atlassian.net/wiki/spaces/X)\n',
    );
    expect(md('<p><a href="/x">kept relative without a base</a></p>')).toBe('[kept relative without a base](/x)\n');
    expect(md('<p><a href="/x">or with an invalid one</a></p>', 'not a url')).toBe('[or with an invalid one](/x)\n');
    expect(md('<p><a href="//cdn.example.com/f">cdn</a> <a href="mailto:ops@example.com">mail</a></p>', base)).toBe(
      '[cdn](https://cdn.example.com/f) [mail](mailto:ops@example.com)\n',
    );
  });

  it('writes a link whose text is its URL as an autolink', () => {
    expect(md('<p><a href="https://example.com/x?a=1&amp;b=2">https://example.com/x?a=1&amp;b=2</a></p>')).toBe('<https://example.com/x?a=1&b=2>\n');
  });

  it('keeps only the text of in-page anchors, script links and links without href', () => {
    expect(md('<p><a href="#top">Top</a> <a href="javascript:alert(1)">Click</a> <a>Name</a></p>')).toBe('Top Click Name\n');
  });

  it('escapes parentheses in link targets and brackets in link text', () => {
    const markdown = md('<p><a href="https://en.wikipedia.org/wiki/Go_(game)">Go [game]</a></p>');
    expect(markdown).toBe('[Go \\[game\\]](https://en.wikipedia.org/wiki/Go_\\(game\\))\n');
    const [paragraph] = parse(markdown).children;
    expect(paragraph?.type === 'paragraph' && paragraph.children[0]).toMatchObject({
      type: 'link',
      url: 'https://en.wikipedia.org/wiki/Go_(game)',
    });
  });

  it('does not let a ! before a link turn it into an image', () => {
    const markdown = md('<p>Done!<a href="https://example.com">next</a> <b>Yes!</b><a href="https://example.com/2">more</a></p>');
    expect(markdown).toBe('Done\\![next](https://example.com) **Yes!**[more](https://example.com/2)\n');
    const [paragraph] = parse(markdown).children;
    expect(paragraph?.type === 'paragraph' && paragraph.children.map((child) => child.type)).toEqual(['text', 'link', 'text', 'strong', 'link']);
  });

  it('drops links without text (icon links)', () => {
    expect(md('<p>Before <a href="https://example.com"><img src="icon.png" /></a> after</p>')).toBe('Before after\n');
  });

  it('writes page, blog post, attachment, space and user links as their text', () => {
    const storage =
      '<p>' +
      '<ac:link><ri:page ri:content-title="Release plan" ri:space-key="ENG" /></ac:link>, ' +
      '<ac:link><ri:page ri:content-title="Release plan" /><ac:plain-text-link-body><![CDATA[the plan]]></ac:plain-text-link-body></ac:link>, ' +
      '<ac:link><ri:blog-post ri:content-title="Q3 update" ri:posting-day="2024/07/01" /></ac:link>, ' +
      '<ac:link><ri:attachment ri:filename="budget.xlsx" /></ac:link>, ' +
      '<ac:link><ri:attachment ri:filename="a.pdf" /><ac:link-body>the <strong>PDF</strong></ac:link-body></ac:link>, ' +
      '<ac:link><ri:space ri:space-key="OPS" /></ac:link>, ' +
      '<ac:link><ri:user ri:username="jsmith" /></ac:link>, ' +
      '<ac:link><ri:user ri:account-id="557058:1234" /><ac:link-body>Jane</ac:link-body></ac:link>' +
      '</p>';
    expect(md(storage, base)).toBe('Release plan, the plan, Q3 update, budget.xlsx, the **PDF**, OPS, jsmith, Jane\n');
  });

  it('writes ri:url links as Markdown links', () => {
    expect(md('<p><ac:link><ri:url ri:value="https://example.com/doc" /><ac:plain-text-link-body><![CDATA[Doc]]></ac:plain-text-link-body></ac:link></p>')).toBe(
      '[Doc](https://example.com/doc)\n',
    );
    expect(md('<p><ac:link><ri:url ri:value="https://example.com/doc" /></ac:link></p>')).toBe('<https://example.com/doc>\n');
  });

  it('writes links inside links as text', () => {
    expect(md('<p><a href="https://a.example">outer <a href="https://b.example">inner</a></a></p>')).toBe('[outer inner](https://a.example)\n');
  });
});

describe('images', () => {
  it('writes images as their alt text, title or file name', () => {
    expect(md('<p>A <ac:image ac:alt="Architecture"><ri:attachment ri:filename="arch.png" /></ac:image> diagram</p>')).toBe(
      'A Architecture diagram\n',
    );
    expect(md('<p><ac:image ac:title="Logo"><ri:url ri:value="https://example.com/logo.png" /></ac:image></p>')).toBe('Logo\n');
    expect(md('<p><ac:image><ri:attachment ri:filename="screenshot 1.png" /></ac:image></p>')).toBe('screenshot 1.png\n');
    expect(md('<p>x<ac:image><ri:url ri:value="https://example.com/a.png" /></ac:image>y</p>')).toBe('x y\n');
    expect(md('<p><img src="a.png" alt="Alt text" /> <img src="b.png" /></p>')).toBe('Alt text\n');
  });

  it('writes an image outside a paragraph as a paragraph of its own, with its caption', () => {
    expect(
      md('<ac:image ac:alt="One"><ri:attachment ri:filename="1.png" /></ac:image><ac:image ac:alt="Two"><ri:attachment ri:filename="2.png" /><ac:caption><p>The second</p></ac:caption></ac:image>'),
    ).toBe('One\n\nTwo The second\n');
    expect(md('<ac:image ac:alt="Same"><ri:attachment ri:filename="1.png" /><ac:caption>Same</ac:caption></ac:image>')).toBe('Same\n');
    expect(md('<ul><li>See <ac:image ac:alt="icon" /> here</li><li><ac:image ac:alt="alone" /><ul><li>x</li></ul></li></ul>')).toBe(
      '- See icon here\n- alone\n  - x\n',
    );
  });
});

describe('macros', () => {
  const code = (language: string, body: string, extra = ''): string =>
    `<ac:structured-macro ac:name="code" ac:schema-version="1">${extra}<ac:parameter ac:name="language">${language}</ac:parameter>` +
    `<ac:plain-text-body><![CDATA[${body}]]></ac:plain-text-body></ac:structured-macro>`;

  it('writes the code macro as a fenced block with its language, body verbatim', () => {
    const body = 'if (a < b && c > d) {\n  return "<p>&amp;</p>";\n}\n\n  # indented * _ [x]';
    const markdown = md(code('JavaScript', body));
    expect(markdown).toBe(`\`\`\`javascript\n${body}\n\`\`\`\n`);
    expect(parse(markdown).children[0]).toMatchObject({ type: 'code', lang: 'javascript', value: body });
  });

  it('uses a fence longer than any backtick run in the code', () => {
    const body = 'Markdown:\n```js\nx\n```\n````';
    const markdown = md(code('none', body));
    expect(markdown.startsWith('`````\n')).toBe(true);
    expect(parse(markdown).children[0]).toMatchObject({ type: 'code', lang: null, value: body });
  });

  it('writes the code title as a bold line and drops empty code blocks', () => {
    expect(md(code('sql', 'select 1;', '<ac:parameter ac:name="title">Query</ac:parameter>'))).toBe('**Query**\n\n```sql\nselect 1;\n```\n');
    expect(md(code('sql', '  \n'))).toBe('');
  });

  it('writes noformat like code, without a language', () => {
    expect(md('<ac:structured-macro ac:name="noformat"><ac:plain-text-body><![CDATA[raw *text*]]></ac:plain-text-body></ac:structured-macro>')).toBe(
      '```\nraw *text*\n```\n',
    );
  });

  it('reads a code body written with entities instead of CDATA', () => {
    expect(md('<ac:structured-macro ac:name="code"><ac:plain-text-body>a &lt; b</ac:plain-text-body></ac:structured-macro>')).toBe(
      '```\na < b\n```\n',
    );
  });

  it('writes info, note, warning, tip and panel macros as block quotes under their title', () => {
    for (const name of ['info', 'note', 'warning', 'tip', 'panel']) {
      const storage =
        `<ac:structured-macro ac:name="${name}"><ac:parameter ac:name="title">Heads up</ac:parameter>` +
        '<ac:rich-text-body><p>Body text.</p><ul><li>Point</li></ul></ac:rich-text-body></ac:structured-macro>';
      const markdown = md(storage);
      expect(markdown).toBe('> **Heads up**\n>\n> Body text.\n>\n> - Point\n');
      expect(parse(markdown).children.map((node) => node.type)).toEqual(['blockquote']);
    }
    expect(md('<ac:structured-macro ac:name="info"><ac:rich-text-body><p>No title</p></ac:rich-text-body></ac:structured-macro>')).toBe('> No title\n');
  });

  it('writes ADF panels as block quotes and ADF extensions it does not know as their fallback', () => {
    const panel =
      '<ac:adf-extension><ac:adf-node type="panel"><ac:adf-attribute key="panel-type">note</ac:adf-attribute>' +
      '<ac:adf-content><p>Panel text</p></ac:adf-content></ac:adf-node>' +
      '<ac:adf-fallback><div class="panel"><p>Panel text</p></div></ac:adf-fallback></ac:adf-extension>';
    expect(md(panel)).toBe('> Panel text\n');
    const decisions =
      '<ac:adf-extension><ac:adf-node type="decision-list"><ac:adf-attribute key="local-id">x</ac:adf-attribute>' +
      '<ac:adf-node type="decision-item"><ac:adf-attribute key="state">DECIDED</ac:adf-attribute><ac:adf-content>Ship it</ac:adf-content></ac:adf-node>' +
      '</ac:adf-node></ac:adf-extension>';
    expect(md(decisions)).toBe('- Ship it\n');
    const unknown = '<ac:adf-extension><ac:adf-node type="mystery" /><ac:adf-fallback><p>Fallback text</p></ac:adf-fallback></ac:adf-extension>';
    expect(md(unknown)).toBe('Fallback text\n');
  });

  it('writes the expand macro as its bold title then its body', () => {
    const storage = '<ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">Details</ac:parameter><ac:rich-text-body><p>Hidden text</p></ac:rich-text-body></ac:structured-macro>';
    expect(md(storage)).toBe('**Details**\n\nHidden text\n');
  });

  it('writes the status macro as its title, inline', () => {
    const status = (title: string): string =>
      `<ac:structured-macro ac:name="status"><ac:parameter ac:name="colour">Green</ac:parameter><ac:parameter ac:name="title">${title}</ac:parameter></ac:structured-macro>`;
    expect(md(`<p>State: ${status('DONE')} today</p>`)).toBe('State: DONE today\n');
    expect(md(`<h2>Feature${status('beta')}</h2>`)).toBe('## Feature beta\n');
  });

  it('drops toc, anchor and children macros without breaking the paragraph', () => {
    const storage =
      '<ac:structured-macro ac:name="toc"><ac:parameter ac:name="maxLevel">2</ac:parameter></ac:structured-macro>' +
      '<p>Before<ac:structured-macro ac:name="anchor"><ac:parameter ac:name="">here</ac:parameter></ac:structured-macro> after</p>' +
      '<ac:structured-macro ac:name="children"><ac:parameter ac:name="all">true</ac:parameter></ac:structured-macro>';
    expect(md(storage)).toBe('Before after\n');
  });

  it('keeps the bodies of unknown macros, so no text is lost', () => {
    expect(
      md('<ac:structured-macro ac:name="details"><ac:parameter ac:name="id">x</ac:parameter><ac:rich-text-body><p>Owner: Ops</p></ac:rich-text-body></ac:structured-macro>'),
    ).toBe('Owner: Ops\n');
    expect(md('<ac:structured-macro ac:name="html"><ac:plain-text-body><![CDATA[<b>raw</b>]]></ac:plain-text-body></ac:structured-macro>')).toBe(
      '```\n<b>raw</b>\n```\n',
    );
    expect(md('<ac:macro ac:name="section"><ac:rich-text-body><p>Old format</p></ac:rich-text-body></ac:macro>')).toBe('Old format\n');
    expect(md('<p>Issue <ac:structured-macro ac:name="jira"><ac:parameter ac:name="key">OPS-12</ac:parameter></ac:structured-macro> is open</p>')).toBe(
      'Issue OPS-12 is open\n',
    );
  });

  it('writes formulas as code', () => {
    expect(
      md('<p>Energy: <ac:structured-macro ac:name="eazy-math-inline"><ac:parameter ac:name="body">E = mc^2</ac:parameter></ac:structured-macro></p>'),
    ).toBe('Energy: `E = mc^2`\n');
    expect(md('<ac:structured-macro ac:name="easy-math-block"><ac:parameter ac:name="body">\\frac{a}{b}</ac:parameter></ac:structured-macro>')).toBe(
      '```latex\n\\frac{a}{b}\n```\n',
    );
  });

  it('flattens block macros that appear inside inline content', () => {
    expect(md(`<p><strong>Run ${code('bash', 'make\nmake test')}</strong> now</p>`)).toBe('**Run\\\n`make`\\\n`make test`**\\\nnow\n');
    // A wrapper holding blocks is a block itself.
    expect(md(`<p><span>Run ${code('bash', 'make')}</span></p>`)).toBe('Run\n\n```bash\nmake\n```\n');
  });
});

describe('tasks, layouts and other Confluence elements', () => {
  it('writes task lists as GFM task items', () => {
    const storage =
      '<ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>complete</ac:task-status><ac:task-body>Done <strong>thing</strong></ac:task-body></ac:task>' +
      '<ac:task><ac:task-id>2</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>Open thing</ac:task-body>' +
      '<ac:task-list><ac:task><ac:task-status>incomplete</ac:task-status><ac:task-body>Sub task</ac:task-body></ac:task></ac:task-list></ac:task>' +
      '</ac:task-list>';
    const markdown = md(storage);
    expect(markdown).toBe('- [x] Done **thing**\n- [ ] Open thing\n  - [ ] Sub task\n');
    const list = parse(markdown).children[0] as List;
    expect(list.children.map((item) => item.checked)).toEqual([true, false]);
  });

  it('flattens layouts into their content, in order', () => {
    const storage =
      '<ac:layout><ac:layout-section ac:type="two_equal"><ac:layout-cell><p>Left</p></ac:layout-cell><ac:layout-cell><p>Right</p></ac:layout-cell></ac:layout-section>' +
      '<ac:layout-section ac:type="single"><ac:layout-cell><h2>Below</h2></ac:layout-cell></ac:layout-section></ac:layout>';
    expect(md(storage)).toBe('Left\n\nRight\n\n## Below\n');
    const inline = '<ac:layout><ac:layout-section><ac:layout-cell>\n<a href="https://a.example">one</a> <b>two</b>\n</ac:layout-cell></ac:layout-section></ac:layout>';
    expect(md(inline)).toBe('[one](https://a.example) **two**\n');
  });

  it('writes emoticons as their fallback character, or nothing', () => {
    expect(md('<p>Good <ac:emoticon ac:name="tick" ac:emoji-fallback="✅" /> job</p>')).toBe('Good ✅ job\n');
    expect(md('<p><ac:emoticon ac:emoji-shortname=":art:" ac:emoji-id="1f3a8" ac:emoji-fallback="\\uD83C\\uDFA8" /></p>')).toBe('🎨\n');
    expect(md('<p><ac:emoticon ac:emoji-id="1f1fa-1f1f8" /> <ac:emoticon ac:name="smile" />x</p>')).toBe('🇺🇸 x\n');
  });

  it('drops placeholders and writes <time> as its date', () => {
    expect(md('<p><ac:placeholder>Type here</ac:placeholder>Due <time datetime="2024-06-30" /></p>')).toBe('Due 2024-06-30\n');
    expect(md('<p><time>next week</time></p>')).toBe('next week\n');
  });

  it('ignores scripts, styles and comments', () => {
    expect(md('<p>a<!-- hidden --></p><script>var x = "<p>no</p>";</script><style>p { color: red }</style><p>b</p>')).toBe('a\n\nb\n');
  });
});

describe('text', () => {
  it('decodes XML, HTML named and numeric entities', () => {
    expect(md('<p>&lt;&gt;&amp;&quot;&apos; &nbsp;&rsquo;&ldquo;&rdquo;&mdash;&ndash;&hellip;&copy;&euro;&times;&rarr; &#8217;&#x1F600;&#150;</p>')).toBe(
      '<>&"\' ’“”—–…©€×→ ’😀–\n',
    );
  });

  it('keeps unknown and malformed entities as written', () => {
    expect(md('<p>&bogus; &#xZZ; &#99999999; &amp &#0;</p>')).toBe('\\&bogus; &#xZZ; � &amp �\n');
  });

  it('keeps Unicode text', () => {
    const storage = '<h2>Überblick 概要 обзор</h2><p>emoji 👩‍💻 and RTL שלום, combining é</p>';
    expect(md(storage)).toBe('## Überblick 概要 обзор\n\nemoji 👩‍💻 and RTL שלום, combining é\n');
  });

  const plainCases = [
    '# not a heading',
    '## also not',
    '> not a quote',
    '- not a bullet',
    '+ not a bullet',
    '* not a bullet',
    '1. not a list',
    '2) not a list',
    '---',
    '===',
    '+++',
    '| --- | --- |',
    '*stars* and **more**',
    '_under_ score_ snake_case_name __init__',
    'naïve_façade_ü —_dash_— «_quote_» 😀_emoji_😀',
    '`tick` ``double``',
    '[text](https://example.com) and ![image](x.png) and [ref]',
    '<div>html</div> <https://autolink.example> a < b > c',
    'AT&T &amp; &copy; &#123;',
    '~~strike~~ ~/home/user ~tilde~',
    'back\\slash and \\* and C:\\path\\',
    'a * b * c (stars between spaces)',
    '2 * 3 = 6, 5*4=20',
    'https://example.com/x_y_z and www.example.com',
    'see https://example.com/~user/_draft_ and (www.example.com/*star*) or _this_',
    '100% [x] [ ] done',
    '\\',
  ];

  it.each(plainCases)('escapes text so that it reads back unchanged: %s', (value) => {
    const escaped = escapeHtml(value);
    const markdown = md(`<p>${escaped}</p>`);
    const root = parse(markdown);
    expect(root.children.map((node) => node.type)).toEqual(['paragraph']);
    expect(text(root)).toBe(value);
  });

  it('escapes line starts after hard breaks too', () => {
    const markdown = md('<p>first<br/># second<br/>- third<br/>3. fourth<br/>===</p>');
    const root = parse(markdown);
    expect(root.children.map((node) => node.type)).toEqual(['paragraph']);
    expect(text(root)).toBe('first\n# second\n- third\n3. fourth\n===');
  });

  it('leaves the characters of bare URLs unescaped, so the URL is linked as written', () => {
    const markdown = md('<p>Home: https://acme.example/wiki/spaces/~jane/_drafts_/list (old: www.acme.example/~jane)</p>');
    expect(markdown).toBe('Home: https://acme.example/wiki/spaces/~jane/_drafts_/list (old: www.acme.example/~jane)\n');
    const [paragraph] = parse(markdown).children;
    expect(paragraph?.type === 'paragraph' && paragraph.children[1]).toMatchObject({
      type: 'link',
      url: 'https://acme.example/wiki/spaces/~jane/_drafts_/list',
    });
  });

  it('keeps ordinary punctuation readable', () => {
    expect(md("<p>It's 5 - 3 = 2; snake_case, a+b, (parens), {braces}, 'quotes', \"dq\", #hashtag, 50%!</p>")).toBe(
      "It's 5 - 3 = 2; snake_case, a+b, (parens), {braces}, 'quotes', \"dq\", #hashtag, 50%!\n",
    );
  });
});

describe('a realistic page', () => {
  const storage = fixture('payments-runbook.xml');
  const markdown = storageToMarkdown(storage, { baseUrl: 'https://acme.atlassian.net/wiki' });

  it('converts as expected', () => {
    expect(markdown).toBe(fixture('payments-runbook.md'));
  });

  it('is well-formed GFM: headings, lists, code, tables and tasks are parsed as such', () => {
    const types = parse(markdown).children.map((node) => (node.type === 'heading' ? `h${node.depth}` : node.type));
    expect(types).toEqual([
      'blockquote',
      'h1',
      'paragraph',
      'h2',
      'list',
      'paragraph',
      'blockquote',
      'h2',
      'table',
      'h2',
      'paragraph',
      'paragraph',
      'h3',
      'list',
      'paragraph',
    ]);
  });

  it('chunks into one section per heading', () => {
    const chunked = chunkMarkdown({ title: 'Payments API runbook', content: markdown });
    const paths = chunked.parents.map((parent) => parent.headingPath);
    expect(paths).toEqual([
      'Payments API runbook',
      'Payments API runbook > Payments API runbook Reviewed',
      'Payments API runbook > Payments API runbook Reviewed > Deploying',
      'Payments API runbook > Payments API runbook Reviewed > Alerts ⚠️',
      'Payments API runbook > Payments API runbook Reviewed > Rolling back',
      'Payments API runbook > Payments API runbook Reviewed > Rolling back > Checklist',
    ]);
    const deploying = chunked.parents.find((parent) => parent.headingPath.endsWith('Deploying'));
    expect(deploying?.content).toContain('kubectl -n payments rollout status deploy/payments-api');
  });
});
