import { escapeText } from './escape.ts';

/**
 * Builds the Markdown of one run of inline content (a paragraph, heading or table cell line),
 * taking care of what makes hand-written Markdown go wrong:
 * - whitespace is collapsed, never starts or ends a line, and sits outside emphasis markers
 *   (`<b> bold </b>` becomes ` **bold** `);
 * - markers are written lazily, so elements without text leave nothing (`<b> </b>`, an icon
 *   link); emphasis nested in the same emphasis is not doubled, and emphasis right after the
 *   same emphasis continues it (`<b>a</b><b>b</b>` is `**ab**`, not `**a****b**`);
 * - emphasis that CommonMark would not recognise because of the characters around its markers
 *   (`x**(y)**`, `**Note:**text`) is written without markers rather than as stray asterisks:
 *   opening tokens are checked when written, closing tokens once the next content is known.
 *   (When a pair is cut out, the tokens around it are not all checked again: in rare nestings
 *   a stray delimiter may remain, as literal text.)
 * Hard line breaks are kept as `\n` (never at the start or end); the caller decides how lines
 * are joined.
 */

/** An opening token written to the output. */
interface Opening {
  readonly token: string;
  readonly at: number;
  /** The character after the opening tokens written with it (the content's first). */
  readonly contentStart: number;
  /** Cut out, with its closing token. */
  removed: boolean;
  /** Closing tokens written right before it: being punctuation, it made them work. */
  settled: ClosingToken[] | null;
  /** The opening token written right after it (before the same content), if any. */
  following: Opening | null;
}

/** A closing emphasis token in the output, and whether it follows punctuation. */
interface ClosingToken {
  readonly opening: Opening;
  readonly at: number;
  readonly afterPunctuation: boolean;
}

/** An emphasis or link opened by the caller. */
export interface Marker {
  readonly open: string;
  /** Pending until content comes; then written, or plain (the delimiters would not flank). */
  state: 'pending' | 'written' | 'plain';
  opening: Opening | null;
}

const LINE_START = -1;

/** Whitespace other than single spaces, which text needs collapsed. */
const NEEDS_COLLAPSE = /[\t\n\r\f\u00a0]| {2}/;
const WHITESPACE_RUN = /[ \t\n\r\f\u00a0]+/g;

const PUNCTUATION = /[\p{P}\p{S}]/u;

const isWhitespaceCode = (code: number): boolean => code === LINE_START || code === 32 || code === 10 || code === 9;

/**
 * Unicode punctuation or symbol, as the Markdown parser's flanking rules see it: one UTF-16 unit
 * at a time, so astral characters (emoji) count as neither punctuation nor whitespace.
 */
function isPunctuationCode(code: number): boolean {
  if (code < 0) return false;
  if (code < 128) {
    return (code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126);
  }
  return PUNCTUATION.test(String.fromCharCode(code));
}

export class InlineBuilder {
  private out = '';
  /**
   * Changes to what was written, applied when finishing: markers found not to work are cut out
   * (start, end, ''), and a `!` found to precede a link is escaped (at, at, '\\').
   */
  private readonly edits: [start: number, end: number, replacement: string][] = [];
  /** Last character written (LINE_START at the start of a line). */
  private last = LINE_START;
  /**
   * When the output ends with emphasis tokens of one character (`**` then `*`), which Markdown
   * reads as one delimiter run: that character, and the character before the run.
   */
  private runChar = -1;
  private runBefore = LINE_START;
  /** Whitespace seen since the last content, written before the next content. */
  private space = false;
  /** A line break requested since the last content, written before the next content. */
  private newline = false;
  /** Opened markers waiting for their first content. */
  private readonly pendingOpen: Marker[] = [];
  /** The marker whose closing token was the last thing written, if it was. */
  private lastClosed: { marker: Marker; at: number } | null = null;
  /**
   * Emphasis closing tokens written since the last content, in order. One written after
   * punctuation only works if whitespace or punctuation follows it, which the next content
   * decides (a closing token right after it is no help: it may turn out not to work either).
   */
  private closing: ClosingToken[] = [];
  /** Depth of open links: their text escapes `]`, and links inside links are plain text. */
  linkDepth = 0;

  /** Text from the page (any whitespace run counts as one space). */
  text(value: string): void {
    if (value === '') return;
    const collapsed = NEEDS_COLLAPSE.test(value) ? value.replace(WHITESPACE_RUN, ' ') : value;
    let start = 0;
    let end = collapsed.length;
    if (collapsed.charCodeAt(0) === 32) {
      this.space = true;
      start = 1;
    }
    const trailing = end > start && collapsed.charCodeAt(end - 1) === 32;
    if (trailing) end--;
    if (end > start) this.write(escapeText(collapsed.slice(start, end), this.linkDepth > 0));
    if (trailing) this.space = true;
  }

  /** Markdown written as is (a code span, an autolink, an already converted line). */
  raw(markdown: string): void {
    if (markdown !== '') this.write(markdown);
  }

  /**
   * A hard line break, written before the next content: breaks at the start or end of the
   * content, or repeated, collapse into one or none.
   */
  lineBreak(): void {
    if (this.last !== LINE_START) this.newline = true;
  }

  /** Opens emphasis (`*`, `**`, `~~`) or a link (`[`); written with the first content. */
  open(token: string): Marker {
    const marker: Marker = { open: token, state: 'pending', opening: null };
    this.pendingOpen.push(marker);
    if (token === '[') this.linkDepth++;
    return marker;
  }

  /** Closes a marker with its closing token (`**`, `](url)`). */
  close(marker: Marker, token: string): void {
    if (marker.open === '[') this.linkDepth--;
    if (marker.state === 'pending') {
      // Nothing was written inside: the marker disappears.
      const index = this.pendingOpen.lastIndexOf(marker);
      if (index !== -1) this.pendingOpen.splice(index, 1);
      return;
    }
    if (marker.state === 'plain' || marker.opening === null) return;
    if (marker.open === '[') return this.push(token);
    const before = this.runChar === token.charCodeAt(0) ? this.runBefore : this.last;
    const at = this.out.length;
    this.push(token, true);
    this.lastClosed = { marker, at };
    this.closing.push({ opening: marker.opening, at, afterPunctuation: isPunctuationCode(before) });
  }

  /** The Markdown built so far, with `\n` for hard breaks. */
  finish(): string {
    this.settle(this.takeClosing(), LINE_START);
    const { out, edits } = this;
    if (edits.length === 0) return out;
    edits.sort((a, b) => a[0] - b[0]);
    let result = '';
    let from = 0;
    for (const [start, end, replacement] of edits) {
      result += out.slice(from, start) + replacement;
      from = end;
    }
    return result + out.slice(from);
  }

  private write(content: string): void {
    const first = content.charCodeAt(0);
    if (this.newline) {
      this.newline = false;
      this.space = false;
      this.push('\n');
    } else if (this.space) {
      this.space = false;
      if (this.last !== LINE_START) this.push(' ');
    } else if (first === 96 && this.last === 96 && this.out.charCodeAt(this.out.length - 2) !== 92) {
      // Code spans side by side would merge their backtick fences: keep them apart.
      this.push(' ');
    }
    const { pendingOpen } = this;
    let previous: Opening | null = null;
    for (let index = 0; index < pendingOpen.length; index++) {
      const marker = pendingOpen[index] as Marker;
      if (this.lastClosed?.marker.open === marker.open) {
        this.reopen(marker, this.lastClosed.marker, this.lastClosed.at);
        continue;
      }
      // An opening emphasis delimiter before punctuation (the next marker is punctuation too)
      // must follow whitespace or punctuation.
      const next = index + 1 < pendingOpen.length ? (pendingOpen[index + 1] as Marker).open.charCodeAt(0) : first;
      const before = this.runChar === marker.open.charCodeAt(0) ? this.runBefore : this.last;
      if (marker.open !== '[' && isPunctuationCode(next) && !isWhitespaceCode(before) && !isPunctuationCode(before)) {
        marker.state = 'plain';
        continue;
      }
      // `![` would make the link an image.
      if (marker.open === '[' && this.last === 33) this.edits.push([this.out.length - 1, this.out.length - 1, '\\']);
      const opening: Opening = { token: marker.open, at: this.out.length, contentStart: first, removed: false, settled: null, following: null };
      // Closing tokens right before it now have punctuation after them (unless they are the
      // same character: then they are one delimiter run, and what follows the run counts).
      if (this.closing.length > 0 && this.runChar !== marker.open.charCodeAt(0)) opening.settled = this.takeClosing();
      if (previous) previous.following = opening;
      previous = opening;
      marker.state = 'written';
      marker.opening = opening;
      this.push(marker.open, marker.open !== '[');
    }
    if (pendingOpen.length > 0) pendingOpen.length = 0;
    this.push(content);
  }

  /**
   * Emphasis opened right where the same emphasis closed (`<b>a</b><b>b</b>`) continues it: its
   * closing token is taken back, since `**a****b**` would not be emphasis at all.
   */
  private reopen(marker: Marker, closed: Marker, at: number): void {
    this.out = this.out.slice(0, at);
    const last = at > 0 ? this.out.charCodeAt(at - 1) : LINE_START;
    this.last = last === 10 ? LINE_START : last;
    this.runChar = -1;
    if (this.closing[this.closing.length - 1]?.at === at) this.closing.pop();
    this.lastClosed = null;
    marker.state = 'written';
    marker.opening = closed.opening;
  }

  /** Appends to the output (an emphasis token, or content which settles the closing tokens before it). */
  private push(part: string, token = false): void {
    this.lastClosed = null;
    const first = part.charCodeAt(0);
    if (!token) {
      if (this.closing.length > 0) this.settle(this.takeClosing(), first);
      this.runChar = -1;
    } else if (this.runChar !== first) {
      this.runChar = first;
      this.runBefore = this.last;
    }
    this.out += part;
    this.last = part.charCodeAt(part.length - 1);
    if (this.last === 10) this.last = LINE_START;
  }

  private takeClosing(): ClosingToken[] {
    const taken = this.closing;
    this.closing = [];
    return taken;
  }

  /**
   * Settles closing tokens written one after the other, now that `next` follows them: from the
   * last one back, a token after punctuation with something other than whitespace or
   * punctuation after it does not work, and is cut out with its opening token. The first one
   * that works settles the ones before it (it is punctuation after them).
   */
  private settle(tokens: readonly ClosingToken[], next: number): void {
    if (tokens.length === 0 || isWhitespaceCode(next) || isPunctuationCode(next)) return;
    for (let index = tokens.length - 1; index >= 0; index--) {
      const token = tokens[index] as ClosingToken;
      if (token.opening.removed) continue;
      if (!token.afterPunctuation) break;
      this.removePair(token);
    }
  }

  /**
   * Cuts out a closing token and its opening token. Closing tokens that the opening token made
   * work are then followed by the next opening token written with it, or by its content.
   */
  private removePair(token: ClosingToken): void {
    const { opening, at } = token;
    opening.removed = true;
    const length = opening.token.length;
    this.edits.push([at, at + length, ''], [opening.at, opening.at + length, '']);
    const { settled } = opening;
    if (settled === null) return;
    opening.settled = null;
    let following = opening.following;
    while (following?.removed) following = following.following;
    if (following) following.settled = following.settled ? [...settled, ...following.settled] : settled;
    else this.settle(settled, opening.contentStart);
  }
}
