import { describe, expect, it } from 'vitest';
import { decodeEntities } from './entities.ts';
import { attribute, MAX_TREE_DEPTH, parseStorage, textContent, type StorageElement, type StorageNode } from './parse.ts';

/** A compact rendering of the tree: elements as name(children), text quoted. */
function shape(node: StorageNode): string {
  if (typeof node === 'string') return JSON.stringify(node);
  return `${node.name}(${node.children.map(shape).join(',')})`;
}

const tree = (source: string): string => parseStorage(source).children.map(shape).join(',');

function depth(root: StorageElement): number {
  let deepest = 0;
  const stack: [StorageElement, number][] = [[root, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [element, level] = entry;
    deepest = Math.max(deepest, level);
    for (const child of element.children) if (typeof child !== 'string') stack.push([child, level + 1]);
  }
  return deepest;
}

describe('parseStorage', () => {
  it('builds elements with lower-cased names and undeclared prefixes', () => {
    expect(tree('<P>a<AC:Link><RI:Page ri:content-title="T"/></AC:Link></P>')).toBe('p("a",ac:link(ri:page()))');
  });

  it('reads double-quoted, single-quoted, unquoted and valueless attributes, decoding references on access', () => {
    const [element] = parseStorage(`<a HREF="x?a=1&amp;b=2" title='it&apos;s' data-n=3 hidden>t</a>`).children as StorageElement[];
    expect(element && attribute(element, 'href')).toBe('x?a=1&b=2');
    expect(element && attribute(element, 'title')).toBe("it's");
    expect(element && attribute(element, 'data-n')).toBe('3');
    expect(element && attribute(element, 'hidden')).toBe('');
    expect(element && attribute(element, 'missing')).toBeUndefined();
  });

  it('keeps CDATA verbatim and drops comments, processing instructions and doctypes', () => {
    expect(tree('<?xml version="1.0"?><!DOCTYPE html><p><![CDATA[<b>&amp;</b>]]><!-- note --></p>')).toBe('p("<b>&amp;</b>")');
  });

  it('treats an unterminated CDATA section as text to the end, and an unterminated comment as running to the end', () => {
    expect(tree('<p>a<![CDATA[b <c> &amp;')).toBe('p("a","b <c> &amp;")');
    expect(tree('<p>a<!-- b <c>')).toBe('p("a")');
  });

  it('closes void elements and self-closing tags immediately', () => {
    expect(tree('<p>a<br>b<img src="x">c<hr/>d<span/>e</p>')).toBe('p("a",br(),"b",img(),"c",hr(),"d",span(),"e")');
  });

  it('closes the nearest open element of an end tag and ignores end tags with none open', () => {
    expect(tree('<p><b>bold<i>both</b>after</p></div>tail')).toBe('p(b("bold",i("both")),"after"),"tail"');
  });

  it('closes an open li, tr or cell when the next one starts', () => {
    expect(tree('<ul><li>a<li>b</ul>')).toBe('ul(li("a"),li("b"))');
    expect(tree('<table><tr><td>1<td>2<tr><td>3</table>')).toBe('table(tr(td("1"),td("2")),tr(td("3")))');
    expect(tree('<ul><li>a<ul><li>b</ul></ul>')).toBe('ul(li("a",ul(li("b"))))');
  });

  it('reads a < that does not start a tag as text', () => {
    expect(tree('<p>a < b, c<3, x <= y, <>, << d</p>')).toBe('p("a ","<"," b, c","<","3, x ","<","= y, ","<",">, ","<","<"," d")');
    expect(textContent(parseStorage('<p>if a<b then c</p>'))).toBe('if a<b then c');
    expect(textContent(parseStorage('<p>x <a title="unterminated>y</p>'))).toBe('x <a title="unterminated>y');
  });

  it('skips script and style content unparsed', () => {
    expect(tree('<script>if (a<b) document.write("</p>")</script><p>x</p>')).toBe('script(),p("x")');
  });

  it('normalises line endings', () => {
    expect(textContent(parseStorage('<p>a\r\nb\rc</p>'))).toBe('a\nb\nc');
  });

  it('drops indentation inside structural elements but keeps text there', () => {
    expect(tree('<ul>\n  <li>a</li>\n  stray\n</ul>')).toBe('ul(li("a"),"\\n  stray\\n")');
  });

  it('caps the depth of the tree and keeps the text below the cap', () => {
    const source = `${'<div>'.repeat(1_000)}deep${'</div>'.repeat(1_000)}<p>after</p>`;
    const root = parseStorage(source);
    expect(depth(root)).toBe(MAX_TREE_DEPTH);
    expect(textContent(root).replace(/\s+/g, ' ')).toBe(' deep after');
  });

  it('drops macro parameter text below the depth cap', () => {
    const macro = '<ac:structured-macro ac:name="status"><ac:parameter ac:name="colour">Green</ac:parameter></ac:structured-macro>';
    const root = parseStorage(`${'<span>'.repeat(300)}text${macro}${'</span>'.repeat(300)}`);
    expect(textContent(root).replace(/\s+/g, ' ').trim()).toBe('text');
  });
});

describe('decodeEntities', () => {
  it('decodes the XML, HTML and numeric references', () => {
    expect(decodeEntities('&lt;&gt;&amp;&quot;&apos;')).toBe('<>&"\'');
    expect(decodeEntities('&nbsp;&copy;&eacute;&Omega;&omega;&sigmaf;&hellip;&trade;&lang;')).toBe('\u00a0©éΩως…™⟨');
    expect(decodeEntities('&#65;&#x42;&#X43;&#128512;')).toBe('ABC😀');
  });

  it('maps C1 references as browsers do and invalid ones to U+FFFD', () => {
    expect(decodeEntities('&#150;&#147;&#148;')).toBe('–“”');
    expect(decodeEntities('&#0;&#xD800;&#x110000;')).toBe('\ufffd\ufffd\ufffd');
  });

  it('keeps unknown, unterminated and over-long references as written', () => {
    for (const text of ['&unknown;', '&amp', '& amp;', '&#;', '&#x;', '&#12345678901;', `&${'a'.repeat(40)};`, 'a & b']) {
      expect(decodeEntities(text)).toBe(text);
    }
  });
});
