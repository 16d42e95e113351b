import type { Element, Parents, Root as HastRoot, Text } from 'hast';
import { toText } from 'hast-util-to-text';
import type { Nodes as MdastNodes, Root as MdastRoot } from 'mdast';
import rehypeRemark from 'rehype-remark';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import { classTokens, limitDepth, stringProperty, truncateTree, walkElements } from './tree.ts';

/**
 * Depth of the tree handed to rehype-remark and remark-stringify. Both recurse once per level (a
 * few thousand levels overflow the stack) and get slow on deep trees well before that; real pages
 * stay far below this.
 */
export const MAX_CONVERTED_DEPTH = 100;

/**
 * Nodes (elements and text) of main content converted; the rest of a larger page is dropped.
 * Conversion costs about 15-25 µs a node, so this bounds it to a couple of seconds. The longest
 * Wikipedia articles have under 20,000 nodes of content.
 */
export const MAX_CONVERTED_NODES = 100_000;

const processor = unified()
  .use(rehypeRemark)
  .use(remarkGfm)
  .use(remarkStringify, {
    bullet: '-',
    emphasis: '_',
    fences: true,
    listItemIndent: 'one',
    rule: '-',
    strong: '*',
  })
  .freeze();

/** Class prefixes that carry a code block's language. */
const LANGUAGE_PREFIXES = ['language-', 'lang-', 'highlight-source-'];
/** "Languages" that mean no highlighting. */
const NO_LANGUAGE = new Set(['none', 'nohighlight', 'no-highlight', 'plain', 'plaintext']);
/** Line-number gutters of syntax highlighters (Pygments, Prism). */
const LINE_NUMBER_TOKENS = new Set(['linenos', 'lineno', 'linenodiv', 'line-numbers-rows']);

function languageOf(element: Element): string | undefined {
  for (const token of classTokens(element)) {
    const lower = token.toLowerCase();
    for (const prefix of LANGUAGE_PREFIXES) {
      if (lower.startsWith(prefix) && lower.length > prefix.length) return lower.slice(prefix.length);
    }
  }
  return stringProperty(element, 'dataLang') ?? stringProperty(element, 'dataLanguage');
}

function cleanLanguage(raw: string | undefined): string | undefined {
  const lang = raw?.trim().toLowerCase().replace(/[^\w#+.-]/g, '');
  return lang && !NO_LANGUAGE.has(lang) ? lang : undefined;
}

/**
 * Rewrites a `<pre>` as `<pre><code class="language-x">text</code></pre>` so rehype-remark makes
 * a fenced block with the language, wherever the page put it: on the `<code>`, on the `<pre>`,
 * or on a wrapper up to three levels out (`<div class="highlight-source-js"><pre>`).
 */
function normalizeCodeBlock(pre: Element, ancestors: readonly Parents[]): void {
  let lang: string | undefined;
  for (const child of pre.children) {
    if (child.type === 'element' && child.tagName === 'code') {
      lang = cleanLanguage(languageOf(child));
      break;
    }
  }
  lang ??= cleanLanguage(languageOf(pre));
  for (let level = 1; lang === undefined && level <= 3; level++) {
    const up = ancestors[ancestors.length - level];
    if (up?.type !== 'element') break;
    lang = cleanLanguage(languageOf(up));
  }
  const text: Text = { type: 'text', value: toText(pre, { whitespace: 'pre' }) };
  const code: Element = {
    type: 'element',
    tagName: 'code',
    properties: lang ? { className: [`language-${lang}`] } : {},
    children: [text],
  };
  pre.children = [code];
}

function makeResolver(baseUrl: string | undefined, baseHref: string | undefined): (href: string) => string {
  let base: URL | undefined;
  try {
    if (baseUrl !== undefined) base = new URL(baseUrl);
  } catch {
    base = undefined;
  }
  if (baseHref) {
    try {
      base = new URL(baseHref, base);
    } catch {
      // A relative <base href> without a base URL: keep links as they are.
    }
  }
  if (!base) return (href) => href;
  const resolved = base;
  return (href) => {
    try {
      return new URL(href, resolved).href;
    } catch {
      return href;
    }
  };
}

/** Text of heading permalinks (`<a href="#intro">#</a>`), dropped. */
const PERMALINK_TEXT = new Set(['', '#', '¶', '§', '🔗', '⚓', '⚓︎']);

/** Tables used for layout (or holding code blocks, which GFM cells cannot hold) become divs. */
function isLayoutTable(table: Element): boolean {
  const role = stringProperty(table, 'role')?.toLowerCase();
  if (role === 'presentation' || role === 'none') return true;
  let widest = 0;
  let layout = false;
  walkElements(table, (element) => {
    const name = element.tagName;
    if (name === 'table' || name === 'pre' || /^h[1-6]$/.test(name)) {
      layout = true;
      return 'skip';
    }
    if (name === 'tr') {
      let cells = 0;
      for (const child of element.children) {
        if (child.type === 'element' && (child.tagName === 'td' || child.tagName === 'th')) cells++;
      }
      widest = Math.max(widest, cells);
    }
    return undefined;
  });
  return layout || widest <= 1;
}

const TABLE_PARTS = new Set(['caption', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr']);

function unwrapTable(table: Element): void {
  const stack: Element[] = [table];
  for (let element = stack.pop(); element; element = stack.pop()) {
    element.tagName = 'div';
    for (const child of element.children) {
      if (child.type === 'element' && TABLE_PARTS.has(child.tagName)) stack.push(child);
    }
  }
}

function withoutComments(parent: Parents): void {
  let comments = false;
  for (const child of parent.children) {
    // Positions are not needed, and rehype-remark deep-clones the tree.
    delete child.position;
    if (child.type === 'comment') comments = true;
  }
  if (comments) parent.children = parent.children.filter((child) => child.type !== 'comment') as never;
}

/**
 * Rewrites the hast tree into the shape the conversion should see: code blocks normalised, layout
 * tables unwrapped, images replaced by their alt text, links resolved (or unwrapped when they
 * lead nowhere), line-number gutters, heading permalinks and comments dropped.
 */
function prepare(root: HastRoot, resolve: (href: string) => string): void {
  withoutComments(root);
  walkElements(root, (element, _parent, ancestors) => {
    const { tagName } = element;
    if (classTokens(element).some((token) => LINE_NUMBER_TOKENS.has(token.toLowerCase()))) return 'remove';
    if (tagName === 'img') {
      const alt = stringProperty(element, 'alt')?.replace(/\s+/g, ' ').trim();
      if (!alt) return 'remove';
      element.tagName = 'span';
      element.properties = {};
      element.children = [{ type: 'text', value: alt }];
      return 'skip';
    }
    if (tagName === 'pre') {
      normalizeCodeBlock(element, ancestors);
      return 'skip';
    }
    if (tagName === 'table' && isLayoutTable(element)) unwrapTable(element);
    if (tagName === 'a') {
      const href = stringProperty(element, 'href')?.trim();
      if (href?.startsWith('#') && PERMALINK_TEXT.has(toText(element).trim())) return 'remove';
      if (!href || /^(?:javascript|vbscript|data):/i.test(href)) {
        element.tagName = 'span';
        element.properties = {};
      } else {
        element.properties.href = resolve(href);
      }
    }
    withoutComments(element);
    return undefined;
  });
}

const SAME_KIND_PHRASING = new Set(['delete', 'emphasis', 'strong']);

/** Nodes dropped when nothing but whitespace is left in them. */
const DROPPED_WHEN_EMPTY = new Set([
  'blockquote',
  'delete',
  'emphasis',
  'heading',
  'link',
  'list',
  'listItem',
  'paragraph',
  'strong',
]);

function isWhitespace(node: MdastNodes): boolean {
  return node.type === 'break' || (node.type === 'text' && node.value.trim() === '');
}

/**
 * Tidies the mdast tree. Emphasis nested in emphasis (strong in strong, delete in delete) is
 * unwrapped: it means nothing in Markdown, and remark-stringify's cost grows exponentially with
 * such nesting. Links, headings, paragraphs and list items left without content (an icon link
 * whose image had no alt text) are dropped, and a heading's all-bold text loses the bold.
 */
function tidy(root: MdastRoot): void {
  const order: MdastNodes[] = [];
  const stack: [MdastNodes, ReadonlySet<string>][] = [[root, new Set()]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, open] = entry;
    if (!('children' in node)) continue;
    order.push(node);
    const input = [...node.children] as MdastNodes[];
    const output: MdastNodes[] = [];
    for (let index = 0; index < input.length; index++) {
      const child = input[index] as MdastNodes;
      if (SAME_KIND_PHRASING.has(child.type) && open.has(child.type) && 'children' in child) {
        input.splice(index + 1, 0, ...(child.children as MdastNodes[]));
        continue;
      }
      output.push(child);
      if ('children' in child) {
        stack.push([child, SAME_KIND_PHRASING.has(child.type) ? new Set([...open, child.type]) : open]);
      }
    }
    node.children = output as never;
  }
  // Children before parents: reversed pre-order.
  for (let index = order.length - 1; index >= 0; index--) {
    const node = order[index] as MdastNodes;
    if (!('children' in node)) continue;
    const children = (node.children as MdastNodes[]).filter(
      (child) => !(DROPPED_WHEN_EMPTY.has(child.type) && 'children' in child && child.children.every(isWhitespace)),
    );
    if (node.type === 'heading') {
      const content = children.filter((child) => !isWhitespace(child));
      const only = content[0];
      if (content.length === 1 && only && (only.type === 'strong' || only.type === 'emphasis')) {
        node.children = only.children;
        continue;
      }
    }
    node.children = children as never;
  }
}

export interface ConvertOptions {
  baseUrl?: string | undefined;
  baseHref?: string | undefined;
}

export interface Converted {
  markdown: string;
  /** Whether content past MAX_CONVERTED_NODES was dropped. */
  truncated: boolean;
}

/** Converts cleaned content (a hast element or root) to Markdown. */
export function contentToMarkdown(content: Parents, options: ConvertOptions = {}): Converted {
  const root: HastRoot = { type: 'root', children: content.type === 'root' ? content.children : [content] };
  const truncated = truncateTree(root, MAX_CONVERTED_NODES);
  limitDepth(root, MAX_CONVERTED_DEPTH);
  prepare(root, makeResolver(options.baseUrl, options.baseHref));
  const mdast = processor.runSync(root as never) as unknown as MdastRoot;
  tidy(mdast);
  const markdown = processor.stringify(mdast as never).trim();
  return { markdown: markdown === '' ? '' : `${markdown}\n`, truncated };
}
