import { VOID_ELEMENTS } from '../../html/elements.ts';
import { decodeEntities } from './entities.ts';

/**
 * A tolerant tokenizer for Confluence storage format that builds a small tree. Storage is XHTML
 * with `ac:` / `ri:` elements whose namespaces are never declared, HTML entities, and CDATA
 * sections (code macro bodies), so neither an XML parser (it rejects the fragment) nor an HTML
 * parser (CDATA becomes a comment) reads it as written.
 *
 * Anything is accepted, in one pass, in time linear in the input:
 * - names are lower-cased; end tags close the nearest open element of that name (and everything
 *   opened inside it), and are ignored when no such element is open;
 * - a `<` that does not start a well-formed tag is text; an unterminated comment runs to the
 *   end, an unterminated CDATA section is text to the end;
 * - HTML void elements (`<br>`, `<img>`) need no end tag, and a new `<li>`, `<tr>` or cell
 *   closes the open one of its kind;
 * - the tree is at most MAX_TREE_DEPTH elements deep: start tags below that depth are not
 *   materialised, their text goes to the deepest element (elements that hold no text, such as
 *   macro parameters, still drop theirs). The converter can therefore recurse over the tree.
 */

export interface StorageElement {
  /** Lower-cased qualified name: `p`, `ac:structured-macro`, `ri:page`. */
  readonly name: string;
  /** Attribute names (lower-cased) and raw values, alternating; see {@link attribute}. */
  readonly attributes: readonly string[];
  readonly children: StorageNode[];
}

/** An element, or text with character references decoded (CDATA sections included). */
export type StorageNode = StorageElement | string;

/** Elements deeper than this are flattened into their ancestor at this depth. */
export const MAX_TREE_DEPTH = 128;

const NO_ATTRIBUTES: readonly string[] = Object.freeze([]);

/** Elements whose content is not markup and never becomes Markdown. */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style']);

/** Content of these is never text of the page (used for elements flattened below the depth cap). */
const TEXTLESS_ELEMENTS = new Set(['ac:parameter', 'ac:placeholder', 'ac:task-id', 'ac:task-uuid', 'ac:adf-attribute']);

/** Elements whose whitespace-only text is never shown (it only indents their children). */
const STRUCTURAL_ELEMENTS = new Set([
  'ac:layout',
  'ac:layout-section',
  'ac:structured-macro',
  'ac:task',
  'ac:task-list',
  'colgroup',
  'ol',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'tr',
  'ul',
]);

function isBlankText(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code !== 32 && code !== 10 && code !== 9 && code !== 13 && code !== 12) return false;
  }
  return true;
}

/**
 * A start tag of the key closes an open element named in the value, searched from the innermost
 * element outwards, no further than an element named in the boundary set.
 */
const IMPLIED_ENDS: ReadonlyMap<string, { closes: ReadonlySet<string>; boundary: ReadonlySet<string> }> = (() => {
  const lists = new Set(['ul', 'ol', 'table', 'ac:task-list']);
  const rows = new Set(['table', 'thead', 'tbody', 'tfoot']);
  const cells = new Set(['tr', 'table']);
  const cell = new Set(['td', 'th']);
  const definitions = new Set(['dl']);
  const term = new Set(['dt', 'dd']);
  return new Map([
    ['li', { closes: new Set(['li']), boundary: lists }],
    ['tr', { closes: new Set(['tr']), boundary: rows }],
    ['td', { closes: cell, boundary: cells }],
    ['th', { closes: cell, boundary: cells }],
    ['dt', { closes: term, boundary: definitions }],
    ['dd', { closes: term, boundary: definitions }],
  ]);
})();

/** Implied ends are only looked for this many elements up (malformed input can nest deeply). */
const IMPLIED_END_SEARCH = 8;

const TAB = 9;
const LINE_FEED = 10;
const FORM_FEED = 12;
const CARRIAGE_RETURN = 13;
const SPACE = 32;
const BANG = 33;
const DOUBLE_QUOTE = 34;
const SINGLE_QUOTE = 39;
const SLASH = 47;
const LESS_THAN = 60;
const EQUALS = 61;
const GREATER_THAN = 62;
const QUESTION = 63;
const UNDERSCORE = 95;

const isWhitespace = (code: number): boolean =>
  code === SPACE || code === LINE_FEED || code === TAB || code === CARRIAGE_RETURN || code === FORM_FEED;

/** ASCII letter or underscore: what may follow `<` in a start tag. */
const isNameStart = (code: number): boolean => (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === UNDERSCORE;

/** Letters, digits, `:`, `-`, `_`, `.` and anything non-ASCII. */
const isNameChar = (code: number): boolean =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 58) || code === 45 || code === 46 || code === 95 || code >= 128;

/** Names are nearly always lower case already: checking is cheaper than converting. */
function lowerCased(name: string): string {
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    if ((code >= 65 && code <= 90) || code >= 128) return name.toLowerCase();
  }
  return name;
}

interface OpenElement {
  readonly name: string;
  /** Null for an element below MAX_TREE_DEPTH, which is not part of the tree. */
  readonly element: StorageElement | null;
}

/** The value of an attribute with character references decoded, or undefined. */
export function attribute(element: StorageElement, name: string): string | undefined {
  const { attributes } = element;
  for (let index = 0; index < attributes.length; index += 2) {
    if (attributes[index] === name) return decodeEntities(attributes[index + 1] ?? '');
  }
  return undefined;
}

/** The first child element with this name, or undefined. */
export function childElement(element: StorageElement, name: string): StorageElement | undefined {
  for (const child of element.children) {
    if (typeof child !== 'string' && child.name === name) return child;
  }
  return undefined;
}

/** All text under `element`, as written (no whitespace collapsing). Iterative. */
export function textContent(element: StorageElement): string {
  let text = '';
  const stack: StorageNode[] = [element];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node === 'string') {
      text += node;
      continue;
    }
    if (RAW_TEXT_ELEMENTS.has(node.name)) continue;
    for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index] as StorageNode);
  }
  return text;
}

class TreeBuilder {
  readonly root: StorageElement = { name: '#root', attributes: NO_ATTRIBUTES, children: [] };
  private readonly open: OpenElement[] = [{ name: '#root', element: this.root }];
  /** The deepest element of the tree that is open. */
  private current: StorageElement = this.root;
  /** How many elements of each name are open (end tags without one are ignored). */
  private readonly openCounts = new Map<string, number>();
  /** Open elements below the depth cap whose text is dropped. */
  private textless = 0;

  text(value: string): void {
    if (value === '' || this.textless > 0) return;
    // Indentation between rows, items and macro parts is not content: no need to keep it.
    if (STRUCTURAL_ELEMENTS.has(this.current.name) && isBlankText(value)) return;
    this.current.children.push(value);
  }

  start(name: string, attributes: readonly string[], selfClosing: boolean): void {
    this.closeImplied(name);
    const isVoid = selfClosing || VOID_ELEMENTS.has(name);
    if (this.open.length > MAX_TREE_DEPTH) {
      // Below the cap: keep leaves, replace the rest by a space so words stay apart.
      if (isVoid) {
        if (this.textless === 0) this.current.children.push({ name, attributes, children: [] });
        return;
      }
      this.text(' ');
      this.push(name, null);
      if (TEXTLESS_ELEMENTS.has(name)) this.textless++;
      return;
    }
    const element: StorageElement = { name, attributes, children: [] };
    this.current.children.push(element);
    if (!isVoid) this.push(name, element);
  }

  end(name: string): void {
    if (!this.openCounts.get(name)) return;
    for (;;) {
      const popped = this.pop();
      if (popped === undefined || popped.name === name) break;
    }
  }

  private push(name: string, element: StorageElement | null): void {
    this.open.push({ name, element });
    this.openCounts.set(name, (this.openCounts.get(name) ?? 0) + 1);
    if (element) this.current = element;
  }

  private pop(): OpenElement | undefined {
    if (this.open.length <= 1) return undefined;
    const popped = this.open.pop() as OpenElement;
    this.openCounts.set(popped.name, (this.openCounts.get(popped.name) ?? 1) - 1);
    if (popped.element) {
      const parent = this.open[this.open.length - 1] as OpenElement;
      this.current = parent.element ?? this.current;
    } else {
      if (TEXTLESS_ELEMENTS.has(popped.name)) this.textless--;
      this.text(' ');
    }
    return popped;
  }

  /** `<li>` closes an open `<li>` of the same list, and so on (see IMPLIED_ENDS). */
  private closeImplied(name: string): void {
    // Every name with a rule has two characters.
    if (name.length !== 2) return;
    const rule = IMPLIED_ENDS.get(name);
    if (!rule) return;
    const stop = Math.max(1, this.open.length - IMPLIED_END_SEARCH);
    for (let index = this.open.length - 1; index >= stop; index--) {
      const openName = (this.open[index] as OpenElement).name;
      if (rule.boundary.has(openName)) return;
      if (rule.closes.has(openName)) {
        while (this.open.length > index) this.pop();
        return;
      }
    }
  }
}

/** Tokenizer state over one source string. */
class Tokenizer {
  private position = 0;

  constructor(
    private readonly source: string,
    private readonly tree: TreeBuilder,
  ) {}

  run(): void {
    const { source } = this;
    while (this.position < source.length) {
      const lt = source.indexOf('<', this.position);
      if (lt === -1) {
        this.text(this.position, source.length);
        break;
      }
      this.text(this.position, lt);
      this.position = lt;
      const next = source.charCodeAt(lt + 1);
      let end = -1;
      if (isNameStart(next)) end = this.startTag(lt);
      else if (next === SLASH) end = this.endTag(lt);
      else if (next === BANG) end = this.markupDeclaration(lt);
      else if (next === QUESTION) end = this.skipPast(lt, '>');
      if (end === -1) {
        // Not a tag: the `<` is text.
        this.tree.text('<');
        this.position = lt + 1;
      } else {
        this.position = end;
      }
    }
  }

  private text(start: number, end: number): void {
    if (end > start) this.tree.text(decodeEntities(this.source.slice(start, end)));
  }

  /** Index after `needle` (searched from `from`), or the end of the source when it is missing. */
  private skipPast(from: number, needle: string): number {
    const found = this.source.indexOf(needle, from);
    return found === -1 ? this.source.length : found + needle.length;
  }

  /** `<!-- comment -->`, `<![CDATA[text]]>`, `<!DOCTYPE ...>`. */
  private markupDeclaration(lt: number): number {
    const { source } = this;
    if (source.startsWith('<!--', lt)) return this.skipPast(lt + 4, '-->');
    if (source.startsWith('<![CDATA[', lt)) {
      const start = lt + 9;
      const close = source.indexOf(']]>', start);
      const end = close === -1 ? source.length : close;
      if (end > start) this.tree.text(source.slice(start, end));
      return close === -1 ? source.length : close + 3;
    }
    return this.skipPast(lt, '>');
  }

  private readName(start: number): number {
    let index = start;
    while (index < this.source.length && isNameChar(this.source.charCodeAt(index))) index++;
    return index;
  }

  /** `</name ...>`: anything up to `>` is ignored; a `<` first means it was not a tag. */
  private endTag(lt: number): number {
    const { source } = this;
    const nameEnd = this.readName(lt + 2);
    if (nameEnd === lt + 2) return -1;
    for (let index = nameEnd; index < source.length; index++) {
      const code = source.charCodeAt(index);
      if (code === GREATER_THAN) {
        this.tree.end(lowerCased(source.slice(lt + 2, nameEnd)));
        return index + 1;
      }
      if (code === LESS_THAN) return -1;
    }
    return -1;
  }

  /**
   * `<name attr="value" attr='value' attr=value attr>` or `.../>`. Returns the index after the
   * tag, or -1 when this is not a well-formed tag (a `<` where an attribute should be, an
   * unterminated quote or the end of input), so scanning resumes right after the `<`.
   */
  private startTag(lt: number): number {
    const { source } = this;
    const nameEnd = this.readName(lt + 1);
    const name = lowerCased(source.slice(lt + 1, nameEnd));
    let attributes: string[] | null = null;
    let index = nameEnd;
    for (;;) {
      while (index < source.length && isWhitespace(source.charCodeAt(index))) index++;
      if (index >= source.length) return -1;
      const code = source.charCodeAt(index);
      if (code === GREATER_THAN) {
        return this.open(name, attributes, false, index + 1);
      }
      if (code === SLASH) {
        if (source.charCodeAt(index + 1) === GREATER_THAN) {
          return this.open(name, attributes, true, index + 2);
        }
        index++;
        continue;
      }
      if (code === LESS_THAN) return -1;
      // Attribute name: at least one character, so a stray quote or `=` still makes progress.
      const attributeStart = index;
      index++;
      while (index < source.length) {
        const c = source.charCodeAt(index);
        if (isWhitespace(c) || c === EQUALS || c === GREATER_THAN || c === SLASH || c === LESS_THAN) break;
        index++;
      }
      const attributeName = lowerCased(source.slice(attributeStart, index));
      while (index < source.length && isWhitespace(source.charCodeAt(index))) index++;
      let value = '';
      if (source.charCodeAt(index) === EQUALS) {
        index++;
        while (index < source.length && isWhitespace(source.charCodeAt(index))) index++;
        const quote = source.charCodeAt(index);
        if (quote === DOUBLE_QUOTE || quote === SINGLE_QUOTE) {
          const close = source.indexOf(quote === DOUBLE_QUOTE ? '"' : "'", index + 1);
          if (close === -1) return -1;
          value = source.slice(index + 1, close);
          index = close + 1;
        } else {
          const valueStart = index;
          while (index < source.length) {
            const c = source.charCodeAt(index);
            if (isWhitespace(c) || c === GREATER_THAN || c === LESS_THAN) break;
            index++;
          }
          value = source.slice(valueStart, index);
        }
      }
      (attributes ??= []).push(attributeName, value);
    }
  }

  private open(name: string, attributes: string[] | null, selfClosing: boolean, end: number): number {
    this.tree.start(name, attributes ?? NO_ATTRIBUTES, selfClosing);
    if (selfClosing || !RAW_TEXT_ELEMENTS.has(name)) return end;
    // Script and style content is skipped unparsed, up to its end tag.
    const pattern = name === 'script' ? /<\/script/gi : /<\/style/gi;
    pattern.lastIndex = end;
    return pattern.exec(this.source)?.index ?? this.source.length;
  }
}

/** Parses a storage-format fragment into a tree under a `#root` element. Never throws. */
export function parseStorage(source: string): StorageElement {
  const tree = new TreeBuilder();
  new Tokenizer(source.includes('\r') ? source.replace(/\r\n?/g, '\n') : source, tree).run();
  return tree.root;
}
