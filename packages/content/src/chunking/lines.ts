/**
 * Line-level Markdown scanning, shared by the segmenter (which decides where a long document may be
 * cut into independently parsed pieces) and the plain-text fallback splitter.
 *
 * It only tracks the block constructs that can make a line that looks like a block start belong
 * to an earlier block: fenced code, HTML blocks of kinds 1-5 (which span blank lines) and HTML
 * blocks of kinds 6-7 (until the next blank line). All inputs use `\n` line endings.
 */

/** One line of the source. Reused between calls: copy fields you want to keep. */
export interface Line {
  /** Offset of the first character. */
  start: number;
  /** Offset of the line ending (or the end of the text). */
  end: number;
  /** Offset of the next line (after the `\n`), or the end of the text. */
  next: number;
  /** Offset of the first character that is not a space or tab (`end` for a blank line). */
  first: number;
  /** Columns of leading whitespace (tabs expand to the next multiple of 4). */
  indent: number;
  blank: boolean;
}

export function newLine(): Line {
  return { start: 0, end: 0, next: 0, first: 0, indent: 0, blank: true };
}

/** Reads the line starting at `start` into `line`. */
export function readLine(text: string, start: number, line: Line): Line {
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  let first = start;
  let indent = 0;
  while (first < end) {
    const c = text.charCodeAt(first);
    if (c === 0x20) indent++;
    else if (c === 0x09) indent += 4 - (indent % 4);
    else break;
    first++;
  }
  line.start = start;
  line.end = end;
  line.next = end < text.length ? end + 1 : end;
  line.first = first;
  line.indent = indent;
  line.blank = first === end;
  return line;
}

/** What a line is, as far as the scanner can tell. */
export const LineKind = {
  Blank: 0,
  /** Ordinary content (paragraph, list, quote, table row, ...). */
  Text: 1,
  /** An ATX heading (`#` to `######`) outside of code and HTML. */
  Heading: 2,
  FenceOpen: 3,
  /** Inside fenced code. */
  FenceBody: 4,
  FenceClose: 5,
  /** Inside or starting an HTML block. */
  Html: 6,
} as const;
export type LineKind = (typeof LineKind)[keyof typeof LineKind];

const HTML_RAW_TAGS = ['script', 'pre', 'style', 'textarea'];

/** Block state carried from line to line. */
export class LineScanner {
  private fenceChar = 0;
  private fenceLength = 0;
  /** End markers of the open HTML block of kind 1-5, or null. */
  private htmlEnd: readonly string[] | null = null;
  /** Inside an HTML block of kind 6-7 (ends at a blank line). */
  private htmlUntilBlank = false;
  private previousBlank = true;
  /** True when the last classified line may start a new, independently parsed segment. */
  canStartSegment = false;
  /** Heading level of the last line when it was a heading. */
  headingDepth = 0;

  constructor(private readonly text: string) {}

  /** Classifies `line` (lines must be fed in order) and updates the state. */
  classify(line: Line): LineKind {
    const text = this.text;
    this.canStartSegment = false;
    this.headingDepth = 0;
    if (this.fenceChar !== 0) {
      this.previousBlank = false;
      if (line.indent <= 3 && this.isClosingFence(line)) {
        this.fenceChar = 0;
        return LineKind.FenceClose;
      }
      return LineKind.FenceBody;
    }
    if (this.htmlEnd !== null) {
      this.previousBlank = false;
      if (containsAny(text, line.start, line.end, this.htmlEnd)) this.htmlEnd = null;
      return LineKind.Html;
    }
    if (line.blank) {
      this.previousBlank = true;
      this.htmlUntilBlank = false;
      return LineKind.Blank;
    }
    const afterBlank = this.previousBlank;
    this.previousBlank = false;
    const c = text.charCodeAt(line.first);
    const atColumnZero = line.first === line.start;
    if (line.indent <= 3) {
      if (c === 0x23 /* # */) {
        const depth = atxDepth(text, line.first, line.end);
        if (depth > 0 && !this.htmlUntilBlank) {
          this.canStartSegment = atColumnZero;
          this.headingDepth = depth;
          return LineKind.Heading;
        }
      } else if (c === 0x60 /* ` */ || c === 0x7e /* ~ */) {
        let run = line.first;
        while (run < line.end && text.charCodeAt(run) === c) run++;
        const length = run - line.first;
        if (length >= 3 && (c === 0x7e || !text.slice(run, line.end).includes('`'))) {
          this.fenceChar = c;
          this.fenceLength = length;
          this.canStartSegment = atColumnZero && afterBlank;
          this.htmlUntilBlank = false;
          return LineKind.FenceOpen;
        }
      } else if (c === 0x3c /* < */) {
        this.canStartSegment = atColumnZero && afterBlank;
        const end = htmlBlockEnd(text, line.first, line.end);
        if (end !== null) {
          if (!containsAny(text, line.first + 2, line.end, end)) this.htmlEnd = end;
        } else {
          this.htmlUntilBlank = true;
        }
        return LineKind.Html;
      }
    }
    this.canStartSegment = atColumnZero && afterBlank;
    return LineKind.Text;
  }

  private isClosingFence(line: Line): boolean {
    const text = this.text;
    let i = line.first;
    while (i < line.end && text.charCodeAt(i) === this.fenceChar) i++;
    if (i - line.first < this.fenceLength) return false;
    for (; i < line.end; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09) return false;
    }
    return true;
  }
}

/** Level of the ATX heading starting at `first`, or 0. */
export function atxDepth(text: string, first: number, end: number): number {
  let i = first;
  while (i < end && text.charCodeAt(i) === 0x23) i++;
  const depth = i - first;
  if (depth < 1 || depth > 6) return 0;
  if (i === end) return depth;
  const c = text.charCodeAt(i);
  return c === 0x20 || c === 0x09 ? depth : 0;
}

/** Raw inline text of an ATX heading line (markers and closing sequence removed). */
export function atxText(text: string, line: Line): string {
  let i = line.first;
  while (i < line.end && text.charCodeAt(i) === 0x23) i++;
  let content = text.slice(i, line.end).trim();
  const closing = /(^|[ \t])#+$/.exec(content);
  if (closing) content = content.slice(0, closing.index).trimEnd();
  return content;
}

/** End markers for HTML blocks of kinds 1-5 starting at `first`, or null for other lines. */
function htmlBlockEnd(text: string, first: number, end: number): readonly string[] | null {
  if (text.startsWith('<!--', first)) return ['-->'];
  if (text.startsWith('<?', first)) return ['?>'];
  if (text.startsWith('<![CDATA[', first)) return [']]>'];
  const next = text.charCodeAt(first + 1);
  if (next === 0x21 /* ! */) {
    const letter = text.charCodeAt(first + 2) | 0x20;
    return letter >= 0x61 && letter <= 0x7a ? ['>'] : null;
  }
  if ((next | 0x20) >= 0x61 && (next | 0x20) <= 0x7a) {
    const head = text.slice(first + 1, Math.min(end, first + 12)).toLowerCase();
    for (const tag of HTML_RAW_TAGS) {
      if (head.startsWith(tag)) {
        const after = head.charCodeAt(tag.length);
        if (Number.isNaN(after) || after === 0x20 || after === 0x09 || after === 0x3e) {
          return HTML_RAW_TAGS.map((name) => `</${name}>`);
        }
      }
    }
  }
  return null;
}

function containsAny(text: string, start: number, end: number, needles: readonly string[]): boolean {
  if (start >= end) return false;
  const slice = needles.length > 1 ? text.slice(start, end).toLowerCase() : text.slice(start, end);
  return needles.some((needle) => slice.includes(needle));
}

/**
 * Container nesting suggested by the line's prefix: block quote markers, list markers and
 * indentation (half a level per column). Only used to detect pathological nesting, so it may
 * over-count (e.g. `- - -` is a thematic break) but never meaningfully under-counts.
 */
export function nestingDepth(text: string, line: Line, limit: number): number {
  let depth = Math.ceil(line.indent / 2);
  let i = line.first;
  while (i < line.end && depth <= limit) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09) {
      i++;
      continue;
    }
    if (c === 0x3e /* > */) {
      depth++;
      i++;
      continue;
    }
    if (c === 0x2d || c === 0x2b || c === 0x2a) {
      const after = i + 1 < line.end ? text.charCodeAt(i + 1) : 0x20;
      if (after !== 0x20 && after !== 0x09) break;
      depth++;
      i++;
      continue;
    }
    if (c >= 0x30 && c <= 0x39) {
      let j = i;
      while (j < line.end && j - i < 10 && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++;
      const marker = text.charCodeAt(j);
      const after = j + 1 < line.end ? text.charCodeAt(j + 1) : 0x20;
      if ((marker !== 0x2e && marker !== 0x29) || (after !== 0x20 && after !== 0x09)) break;
      depth++;
      i = j + 1;
      continue;
    }
    break;
  }
  return depth;
}
