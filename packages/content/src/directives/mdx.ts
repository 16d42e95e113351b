/**
 * MDX syntax out of a page, its text kept: ESM (`import`/`export` blocks at the top level), JSX
 * component tags (`<Tabs>`, `</TabItem>`, `<Note type="x" />`, fragments) and `{/* comments *\/}`.
 * remark finds what is code (fenced, indented and inline code keep everything); the tags are then
 * read by a small tokenizer that knows JSX attributes (quoted strings and `{...}` expressions).
 * Lower-case tags are HTML and stay, as they do in a Markdown page. MDX's own parser is not used:
 * it rejects a whole page over one stray `<` or `{`, where this keeps going.
 */
import type { Nodes } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

/**
 * Off: indented code, as in MDX (where indentation under a component is not code); HTML, which
 * MDX does not have (its tags are JSX); and inline constructs that cannot hide code, for speed
 * and against inline pathologies. GFM changes nothing about code, so it is not loaded.
 */
const OFF = ['codeIndented', 'htmlFlow', 'htmlText', 'characterReference', 'hardBreakEscape', 'attention', 'autolink', 'labelEnd', 'labelStartImage', 'labelStartLink'];

const parser = unified()
  .use(remarkParse)
  .use(function disableInline() {
    const data = this.data();
    data.micromarkExtensions = [...(data.micromarkExtensions ?? []), { disable: { null: OFF } }];
  })
  .freeze();

/** A tag longer than this is taken for text. */
const MAX_TAG_CHARS = 2_000;

interface Range {
  start: number;
  end: number;
  /** What replaces the range. */
  text: string;
}

/** Code ranges (kept whole) and top-level ESM paragraphs (removed). */
function survey(source: string): { code: Range[]; esm: Range[] } {
  const tree = parser.parse(source);
  const code: Range[] = [];
  const esm: Range[] = [];
  for (const node of tree.children) {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) continue;
    if (node.type === 'paragraph' && /^(?:import|export)[\s{*]/.test(source.slice(start, start + 8))) {
      esm.push({ start, end: source[end] === '\n' ? end + 1 : end, text: '' });
    }
  }
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'code' || node.type === 'inlineCode') {
      const start = node.position?.start.offset;
      const end = node.position?.end.offset;
      if (start !== undefined && end !== undefined) code.push({ start, end, text: '' });
      continue;
    }
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
  code.sort((a, b) => a.start - b.start);
  return { code, esm };
}

/** Skips a quoted string or a balanced `{...}` expression starting at `i`; -1 when unclosed. */
function skipValue(source: string, i: number, limit: number): number {
  const quote = source[i];
  if (quote === '"' || quote === "'") {
    const end = source.indexOf(quote, i + 1);
    return end < 0 || end >= limit ? -1 : end + 1;
  }
  if (quote !== '{') return -1;
  let depth = 0;
  for (let j = i; j < limit; j++) {
    const c = source[j];
    if (c === '{') depth++;
    else if (c === '}') {
      if (--depth === 0) return j + 1;
    } else if (c === '"' || c === "'" || c === '`') {
      const end = source.indexOf(c, j + 1);
      if (end < 0 || end >= limit) return -1;
      j = end;
    }
  }
  return -1;
}

/** The end of a JSX component tag (or fragment) starting at `<`, or -1 when there is none. */
function jsxTagEnd(source: string, start: number): number {
  const limit = Math.min(source.length, start + MAX_TAG_CHARS);
  let i = start + 1;
  if (source[i] === '/') i++;
  const name = /^(?:[A-Z][\w.:-]*)?/.exec(source.slice(i, i + 200))![0];
  // `<>` and `</>` are fragments; otherwise a component name (capitalised, as JSX requires).
  if (name === '' && source[i] !== '>') return -1;
  i += name.length;
  for (;;) {
    while (i < limit && /\s/.test(source[i]!)) i++;
    if (i >= limit) return -1;
    const c = source[i];
    if (c === '>') return i + 1;
    if (c === '/' && source[i + 1] === '>') return i + 2;
    if (c === '{') {
      i = skipValue(source, i, limit);
      if (i < 0) return -1;
      continue;
    }
    const attribute = /^[\p{L}_$][\p{L}\p{N}_$:.-]*/u.exec(source.slice(i, i + 200));
    if (!attribute || name === '') return -1;
    i += attribute[0].length;
    while (i < limit && /[ \t]/.test(source[i]!)) i++;
    if (source[i] === '=') {
      i++;
      while (i < limit && /[ \t]/.test(source[i]!)) i++;
      i = skipValue(source, i, limit);
      if (i < 0) return -1;
    }
  }
}

/**
 * Leading whitespace to drop from the lines inside components: in MDX the children of `<Tabs>`
 * are indented by habit, and in Markdown four spaces of it would make them code. Inside a fenced
 * code block, only the fence's own indentation is dropped (as CommonMark does).
 */
function dedents(source: string, tags: Array<Range & { depth: number }>, code: Range[]): Range[] {
  const edits: Range[] = [];
  let tagIndex = 0;
  let codeIndex = 0;
  let depth = 0;
  for (let lineStart = 0; lineStart < source.length; ) {
    while (tagIndex < tags.length && tags[tagIndex]!.start < lineStart) depth += tags[tagIndex++]!.depth;
    let end = source.indexOf('\n', lineStart);
    if (end < 0) end = source.length;
    if (depth > 0) {
      let indent = 0;
      while (lineStart + indent < end && (source[lineStart + indent] === ' ' || source[lineStart + indent] === '\t')) indent++;
      while (codeIndex < code.length && code[codeIndex]!.end <= lineStart) codeIndex++;
      const block = code[codeIndex];
      if (block && block.start < lineStart) {
        // Inside a code block: as much as its first line was indented.
        const blockLine = source.lastIndexOf('\n', block.start) + 1;
        indent = Math.min(indent, block.start - blockLine);
      }
      if (indent > 0) edits.push({ start: lineStart, end: lineStart + indent, text: '' });
    }
    lineStart = end + 1;
  }
  return edits;
}

/** Removes ESM, JSX component tags and JSX comments from an MDX page body (see above). */
export function removeMdxSyntax(source: string): string {
  const { code, esm } = survey(source);
  const tags: Array<Range & { depth: number }> = [];
  const candidates = /<|\{\/\*/g;
  let commentsClosed = true;
  let codeIndex = 0;
  let esmIndex = 0;
  for (let found = candidates.exec(source); found; found = candidates.exec(source)) {
    const at = found.index;
    while (codeIndex < code.length && code[codeIndex]!.end <= at) codeIndex++;
    const inCode = code[codeIndex];
    if (inCode && inCode.start <= at) {
      candidates.lastIndex = inCode.end;
      continue;
    }
    while (esmIndex < esm.length && esm[esmIndex]!.end <= at) esmIndex++;
    const inEsm = esm[esmIndex];
    if (inEsm && inEsm.start <= at) {
      candidates.lastIndex = inEsm.end;
      continue;
    }
    let end = -1;
    let depth = 0;
    if (source[at] === '<') {
      end = jsxTagEnd(source, at);
      if (end >= 0) depth = source[at + 1] === '/' ? -1 : source[end - 2] === '/' ? 0 : 1;
    } else if (commentsClosed) {
      // Once no comment end is left, none is looked for again (linear on `{/*` repeated).
      const close = source.indexOf('*/}', at + 3);
      commentsClosed = close >= 0;
      end = close < 0 ? -1 : close + 3;
    }
    if (end < 0) continue;
    tags.push({ start: at, end, text: '', depth });
    candidates.lastIndex = end;
  }
  const edits = [...tags, ...esm, ...dedents(source, tags, code)].sort((a, b) => a.start - b.start || a.end - b.end);
  let out = '';
  let position = 0;
  for (const edit of edits) {
    if (edit.start < position) continue;
    out += source.slice(position, edit.start) + edit.text;
    position = edit.end;
  }
  return out + source.slice(position);
}
