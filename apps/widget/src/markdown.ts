/**
 * The Markdown of answers as a tree of plain objects, rendered to DOM nodes by `dom.ts`: never
 * HTML. Raw tags in an answer (or in the documents it quotes) stay text, element names come from
 * a fixed list, and the only attribute taken from the text, a link's address, must be http(s) or
 * relative. A half-written answer (streaming) parses as it stands: an open code fence is code.
 *
 * Written here rather than taken from a library because the renderers worth using are either
 * HTML-producing (marked, markdown-it: they need DOMPurify beside them) or, for their lexer alone,
 * half of the script's 30 KB budget (docs/assistant.md has the figures). It covers what answers
 * hold: paragraphs, headings, lists (nested), block quotes, fenced code, GFM tables, rules, and
 * inline code, bold, italics, strike-through, links and bare URLs.
 */

export type MdTag =
  | 'p'
  | 'h3'
  | 'h4'
  | 'h5'
  | 'h6'
  | 'ul'
  | 'ol'
  | 'li'
  | 'blockquote'
  | 'pre'
  | 'code'
  | 'hr'
  | 'table'
  | 'thead'
  | 'tbody'
  | 'tr'
  | 'th'
  | 'td'
  | 'strong'
  | 'em'
  | 'del'
  | 'a'
  | 'br';

export interface MdElement {
  tag: MdTag;
  /** `href` (a), `start` (ol), `align` (th, td), `lang` (pre): nothing else is ever set. */
  attrs?: Partial<Record<'href' | 'start' | 'align' | 'lang', string>>;
  children: MdNode[];
}

export type MdNode = MdElement | string;

/** The address a link may have: http(s), protocol-relative or relative; anything else (javascript:, data:, mailto:) is none. */
export function safeHref(raw: string): string | undefined {
  // Browsers drop tabs and newlines inside URLs and ignore leading controls and spaces: "java\tscript:" is javascript:.
  const url = raw.replace(/[\u0000-\u0020\u007f]+/g, '');
  if (url === '') return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  if (scheme) return /^https?$/i.test(scheme[1]!) ? url : undefined;
  // "\\evil.example" is "//evil.example" to a browser: protocol-relative, so http(s) too.
  return url;
}

const el = (tag: MdTag, children: MdNode[], attrs?: MdElement['attrs']): MdElement => (attrs ? { tag, attrs, children } : { tag, children });

// ---------------------------------------------------------------------------------------------
// Inline

/**
 * Inline tokens, the first found winning: an escape, a code span, an autolink `<https://…>`, a
 * link or image, bold, strike-through, italics, a bare http(s) URL, a hard line break.
 */
const INLINE =
  /(\\[!-/:-@[-`{-~])|(`+)|<(https?:\/\/[^\s<>]+)>|(!?)\[((?:\\.|[^[\]\\])*)\]\(\s*<?([^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)>?(?:\s+"[^"]*")?\s*\)|(\*\*|__)(?=\S)([\s\S]*?\S)\7|~~(?=\S)([\s\S]*?\S)~~|(?<![\p{L}\p{N}_*])([*_])(?=[^\s*_])([\s\S]*?[^\s\\])\10(?![\p{L}\p{N}])|(https?:\/\/[^\s<]*[^\s<.,:;"')\]!?*_~])|( {2,}|\\)\n/gu;

export function parseInline(text: string): MdNode[] {
  const out: MdNode[] = [];
  let buffer = '';
  let last = 0;
  const flushText = () => {
    if (buffer) out.push(buffer);
    buffer = '';
  };
  INLINE.lastIndex = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index;
    if (index < last) continue;
    buffer += text.slice(last, index);
    const token = match[0];
    let consumed = token.length;
    if (match[1]) {
      buffer += token.slice(1);
    } else if (match[2]) {
      // A code span closes at the next run of as many backticks; without one, the run is text.
      const ticks = match[2];
      const close = findRun(text, ticks, index + ticks.length);
      if (close < 0) {
        buffer += ticks;
      } else {
        flushText();
        let code = text.slice(index + ticks.length, close).replace(/\n/g, ' ');
        if (/^ .*[^ ].* $/.test(code)) code = code.slice(1, -1);
        out.push(el('code', [code]));
        consumed = close + ticks.length - index;
      }
    } else if (match[3]) {
      flushText();
      out.push(link(match[3], [match[3]]));
    } else if (match[5] !== undefined && match[6] !== undefined) {
      flushText();
      const label = match[5];
      // An image becomes a link to it (named by its alt text): answers load nothing by themselves.
      out.push(link(match[6], match[4] ? [label.replace(/\\(.)/g, '$1') || match[6]] : parseInline(label)));
    } else if (match[8] !== undefined) {
      flushText();
      out.push(el('strong', parseInline(match[8])));
    } else if (match[9] !== undefined) {
      flushText();
      out.push(el('del', parseInline(match[9])));
    } else if (match[11] !== undefined) {
      flushText();
      out.push(el('em', parseInline(match[11])));
    } else if (match[12]) {
      flushText();
      out.push(link(match[12], [match[12]]));
    } else if (match[13]) {
      flushText();
      out.push(el('br', []));
    }
    last = index + consumed;
  }
  buffer += text.slice(last);
  flushText();
  return out;
}

function findRun(text: string, run: string, from: number): number {
  for (let at = text.indexOf(run, from); at >= 0; at = text.indexOf(run, at + 1)) {
    // Exactly as many backticks: not part of a longer run.
    if (text[at - 1] !== '`' && text[at + run.length] !== '`') return at;
    while (text[at + 1] === '`') at++;
  }
  return -1;
}

/** A link with a safe address, or its text alone. */
function link(href: string, children: MdNode[]): MdNode {
  const safe = safeHref(href);
  return safe === undefined ? el('em', children) : el('a', children, { href: safe });
}

// ---------------------------------------------------------------------------------------------
// Blocks

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)/;
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

/** Parses Markdown into block elements. */
export function parseMarkdown(text: string): MdElement[] {
  return blocks(text.replace(/\r\n?/g, '\n').split('\n'), 0);
}

/** Nesting deeper than this (quotes in lists in quotes ...) is taken as text: bounded work for hostile input. */
const MAX_DEPTH = 12;

function blocks(lines: string[], depth: number): MdElement[] {
  const out: MdElement[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push(el('p', parseInline(paragraph.join('\n').trim())));
    paragraph = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      flush();
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1]!;
      const code: string[] = [];
      for (i++; i < lines.length; i++) {
        const next = lines[i]!;
        if (next.trimStart().startsWith(marker) && next.trim().replace(/[`~]/g, '') === '') {
          i++;
          break;
        }
        code.push(next);
      }
      out.push(el('pre', [el('code', [code.join('\n')])], fence[2] ? { lang: fence[2].slice(0, 40) } : undefined));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      // Answer headings sit below the panel's own (h2).
      const level = Math.min(heading[1]!.length + 2, 6);
      out.push(el(`h${level}` as MdTag, parseInline(heading[2] ?? '')));
      i++;
      continue;
    }
    if (RULE.test(line) && !(paragraph.length > 0 && /^ {0,3}-+[ \t]*$/.test(line))) {
      flush();
      out.push(el('hr', []));
      i++;
      continue;
    }
    if (depth < MAX_DEPTH && QUOTE.test(line)) {
      flush();
      const inner: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && (QUOTE.test(lines[i]!) || inner.length > 0)) {
        inner.push(lines[i]!.replace(QUOTE, ''));
        i++;
      }
      out.push(el('blockquote', blocks(inner, depth + 1)));
      continue;
    }
    const item = depth < MAX_DEPTH ? ITEM.exec(line) : null;
    // A list interrupts a paragraph only when it starts with 1 or a bullet (CommonMark's rule against "2023. was a year").
    if (item && (paragraph.length === 0 || !/^\d/.test(item[2]!) || /^1[.)]/.test(item[2]!)) && !(item[3] === '' && paragraph.length > 0)) {
      flush();
      i = list(lines, i, out, depth);
      continue;
    }
    if (paragraph.length === 0 && line.includes('|') && i + 1 < lines.length && TABLE_DELIMITER.test(lines[i + 1]!) && lines[i + 1]!.includes('-')) {
      const header = cells(line);
      const aligns = cells(lines[i + 1]!).map((cell) => (/^:-+:$/.test(cell) ? 'center' : /^-+:$/.test(cell) ? 'right' : /^:-+$/.test(cell) ? 'left' : undefined));
      if (aligns.length === header.length) {
        const row = (texts: string[], tag: 'th' | 'td') =>
          el(
            'tr',
            header.map((_, column) => el(tag, parseInline(texts[column] ?? ''), aligns[column] ? { align: aligns[column] } : undefined)),
          );
        const body: MdElement[] = [];
        for (i += 2; i < lines.length && lines[i]!.trim() !== '' && lines[i]!.includes('|'); i++) body.push(row(cells(lines[i]!), 'td'));
        out.push(el('table', [el('thead', [row(header, 'th')]), ...(body.length > 0 ? [el('tbody', body)] : [])]));
        continue;
      }
    }
    paragraph.push(line);
    i++;
  }
  flush();
  return out;
}

/** A table row's cells: split on pipes that are not escaped or inside code. */
function cells(line: string): string[] {
  let text = line.trim();
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
  const out: string[] = [];
  let cell = '';
  let code = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '\\' && text[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (char === '`') {
      code = !code;
      cell += char;
    } else if (char === '|' && !code) {
      out.push(cell.trim());
      cell = '';
    } else {
      cell += char;
    }
  }
  out.push(cell.trim());
  return out;
}

/** A list from line `start`: its items, each parsed as blocks (a tight item's paragraph unwrapped). Returns the next line's index. */
function list(lines: string[], start: number, out: MdElement[], depth: number): number {
  const first = ITEM.exec(lines[start]!)!;
  const ordered = /^\d/.test(first[2]!);
  const delimiter = first[2]!.slice(-1);
  const items: string[][] = [];
  let loose = false;
  let i = start;
  let content = 0;
  let blankBefore = false;
  while (i < lines.length) {
    const line = lines[i]!;
    const item = ITEM.exec(line);
    if (item && (items.length === 0 || item[1]!.length < content)) {
      // A marker left of the current item's content: the next item, or (another kind) the end of the list.
      if (items.length > 0 && (/^\d/.test(item[2]!) !== ordered || item[2]!.slice(-1) !== delimiter)) break;
      if (blankBefore && items.length > 0) loose = true;
      const spaces = item[3]!.length;
      content = item[1]!.length + item[2]!.length + (spaces >= 1 && spaces <= 4 ? spaces : 1);
      items.push([line.slice(item[0].length)]);
      blankBefore = false;
      i++;
      continue;
    }
    if (line.trim() === '') {
      blankBefore = true;
      items[items.length - 1]!.push('');
      i++;
      continue;
    }
    const indent = /^ */.exec(line)![0].length;
    if (indent >= content) {
      // More of the item after a blank line: the list is loose.
      if (blankBefore && items[items.length - 1]!.some((text) => text.trim() !== '') && !ITEM.test(line.slice(content))) loose = true;
      items[items.length - 1]!.push(line.slice(content));
    } else if (!blankBefore && !item && !FENCE.test(line) && !HEADING.test(line) && !QUOTE.test(line) && !RULE.test(line)) {
      // A lazy continuation of the item's paragraph.
      items[items.length - 1]!.push(line.trimStart());
    } else {
      break;
    }
    blankBefore = false;
    i++;
  }
  const children = items.map((itemLines) => {
    while (itemLines.length > 0 && itemLines[itemLines.length - 1]!.trim() === '') itemLines.pop();
    const parsed = blocks(itemLines, depth + 1);
    return el('li', loose ? parsed : parsed.flatMap((block) => (block.tag === 'p' ? block.children : [block])));
  });
  const number = ordered ? Number.parseInt(first[2]!, 10) : 1;
  out.push(el(ordered ? 'ol' : 'ul', children, ordered && number !== 1 ? { start: String(number) } : undefined));
  return i;
}
