import { VOID_ELEMENTS } from './elements.ts';

/**
 * A linear pre-pass over HTML source that bounds how deeply elements nest before the real parser
 * sees it, and drops the content of elements that never become Markdown (scripts and styles are
 * often most of a large page's bytes). parse5 itself copes with any depth, but the hast conversion after it recurses once per
 * level (it overflows the stack somewhere past a few thousand levels), and some of parse5's scope
 * checks walk the whole open-element stack. Browsers cap the tree depth for the same reason.
 *
 * The scan is deliberately approximate: it tracks a stack of open tags with the few implied-end
 * rules that matter for depth (an open `<p>` closes at the next block, `<li>` at the next `<li>`,
 * ...), and leaves the source untouched unless that estimate goes past the limit. Start tags
 * beyond the limit (and their matching end tags) are replaced by a space, so their text stays.
 */

/** Raw-text elements whose content never reaches the Markdown: it is dropped here, unparsed. */
const DROPPED_CONTENT = new Set(['iframe', 'noembed', 'noframes', 'noscript', 'script', 'style', 'textarea']);

/** Elements whose content is not markup: skip to their end tag. */
const RAW_TEXT_ELEMENTS = new Set([
  'iframe',
  'noembed',
  'noframes',
  'noscript',
  'plaintext',
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
]);

/** Start tags that implicitly close an open element of the same name. */
const SELF_CLOSING_SIBLINGS = new Set(['dd', 'dt', 'li', 'option', 'p', 'rp', 'rt', 'td', 'th', 'tr']);

/** Start tags that close an open `<p>`. */
const CLOSES_P = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'details',
  'div',
  'dl',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
]);

interface OpenTag {
  name: string;
  dropped: boolean;
}

interface Tag {
  /** Lower-cased tag name ('' when `<` does not start a tag). */
  name: string;
  closing: boolean;
  selfClosing: boolean;
  /** Index just past the tag. */
  end: number;
}

const isNameStart = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isSpace = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 12 || code === 13;

/** Reads the tag starting at `start` (which holds `<`); linear in the tag's length. */
function readTag(html: string, start: number): Tag | null {
  let index = start + 1;
  const closing = html.charCodeAt(index) === 47; // '/'
  if (closing) index++;
  if (!isNameStart(html.charCodeAt(index))) return null;
  const nameStart = index;
  while (index < html.length) {
    const code = html.charCodeAt(index);
    if (isSpace(code) || code === 47 || code === 62) break;
    index++;
  }
  const name = html.slice(nameStart, index).toLowerCase();
  // Attributes: a quote right after `=` opens a quoted value that may contain `>`.
  let lastSignificant = 0;
  while (index < html.length) {
    const code = html.charCodeAt(index);
    if (code === 62) {
      return { name, closing, selfClosing: lastSignificant === 47, end: index + 1 };
    }
    if ((code === 34 || code === 39) && lastSignificant === 61) {
      const close = html.indexOf(code === 34 ? '"' : "'", index + 1);
      if (close === -1) return { name, closing, selfClosing: false, end: html.length };
      index = close + 1;
      lastSignificant = code;
      continue;
    }
    if (!isSpace(code)) lastSignificant = code;
    index++;
  }
  return { name, closing, selfClosing: false, end: html.length };
}

/** Where the markup construct starting with `<!` or `<?` at `start` ends. */
function skipSpecial(html: string, start: number): number {
  if (html.startsWith('<!--', start)) {
    const close = html.indexOf('-->', start + 4);
    return close === -1 ? html.length : close + 3;
  }
  const close = html.indexOf('>', start + 2);
  return close === -1 ? html.length : close + 1;
}

/** Index of the end tag `</name` at or after `from` (case-insensitive), or the end of input. */
function findRawTextEnd(html: string, name: string, from: number): number {
  const pattern = new RegExp(`</${name}[\\s/>]`, 'ig');
  pattern.lastIndex = from;
  const match = pattern.exec(html);
  return match ? match.index : html.length;
}

/**
 * Returns the HTML with the content of scripts, styles, iframes, noscript and textareas removed
 * and element nesting bounded to about `maxDepth` (estimated as described
 * above), or the input itself when it already is.
 */
export function prepareSource(html: string, maxDepth: number): string {
  const stack: OpenTag[] = [];
  const openCounts = new Map<string, number>();
  const out: string[] = [];
  let copiedUpTo = 0;
  let changed = false;
  let position = 0;

  const push = (name: string, dropped: boolean): void => {
    stack.push({ name, dropped });
    openCounts.set(name, (openCounts.get(name) ?? 0) + 1);
  };
  const pop = (): OpenTag | undefined => {
    const top = stack.pop();
    if (top) openCounts.set(top.name, (openCounts.get(top.name) ?? 1) - 1);
    return top;
  };
  const replace = (start: number, end: number): void => {
    out.push(html.slice(copiedUpTo, start), ' ');
    copiedUpTo = end;
    changed = true;
  };

  while (position < html.length) {
    const lt = html.indexOf('<', position);
    if (lt === -1) break;
    const next = html.charCodeAt(lt + 1);
    if (next === 33 || next === 63) {
      position = skipSpecial(html, lt);
      continue;
    }
    const tag = readTag(html, lt);
    if (!tag) {
      position = lt + 1;
      continue;
    }
    position = tag.end;
    if (tag.closing) {
      if ((openCounts.get(tag.name) ?? 0) === 0) continue;
      let top = pop();
      while (top && top.name !== tag.name) top = pop();
      if (top?.dropped) replace(lt, tag.end);
      continue;
    }
    // `<div/>` is an ordinary start tag in HTML; the slash only closes elements in SVG and MathML.
    const foreign = (openCounts.get('svg') ?? 0) > 0 || (openCounts.get('math') ?? 0) > 0;
    if (VOID_ELEMENTS.has(tag.name) || (tag.selfClosing && foreign)) continue;
    const top = stack.at(-1);
    if (top && ((SELF_CLOSING_SIBLINGS.has(tag.name) && top.name === tag.name) || (top.name === 'p' && CLOSES_P.has(tag.name)))) {
      pop();
    }
    const dropped = stack.length >= maxDepth;
    if (dropped) replace(lt, tag.end);
    if (RAW_TEXT_ELEMENTS.has(tag.name)) {
      // Raw text never nests: skip its content. Scripts, styles and the like lose their content
      // (the parser need not read it); other raw text stays, without its tags if they were dropped.
      const end = findRawTextEnd(html, tag.name, position);
      const close = end < html.length ? readTag(html, end) : null;
      const after = close ? close.end : html.length;
      if (DROPPED_CONTENT.has(tag.name)) {
        if (end > position) {
          out.push(html.slice(copiedUpTo, position));
          copiedUpTo = end;
          changed = true;
        }
      } else if (dropped) {
        out.push(html.slice(copiedUpTo, end));
        copiedUpTo = after;
      }
      position = after;
      continue;
    }
    push(tag.name, dropped);
  }
  if (!changed) return html;
  out.push(html.slice(copiedUpTo));
  return out.join('');
}
