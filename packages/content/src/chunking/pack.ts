import type { CodeUnit, Span, TableUnit, Unit } from './blocks.ts';
import { mergePieces, splitText, type Piece } from './text-split.ts';
import { estimateRange, estimateTokens } from './tokens.ts';

/** A piece of child content: a source span (mergeable with its neighbours) or synthesized text. */
interface Atom extends Piece {
  /** Set when the content is not a plain source slice (code with re-added fences, repeated table header). */
  literal?: string;
}

/** One child chunk before ordinals are assigned. */
export interface PackedChild {
  content: string;
  tokenCount: number;
}

/**
 * `source` from `start` to `end` without the spans `omitted` (sorted, not overlapping), each with
 * the blank lines after it, so that the blocks around one stay a blank line apart.
 */
export function sliceWithout(source: string, start: number, end: number, omitted: readonly Span[]): string {
  let text = '';
  let at = start;
  for (const span of omitted) {
    if (span.end <= at || span.start >= end) continue;
    text += source.slice(at, Math.max(at, span.start));
    at = Math.min(end, span.end);
    for (;;) {
      const lineEnd = source.indexOf('\n', at);
      if (lineEnd < 0 || lineEnd >= end || source.slice(at, lineEnd).trim() !== '') break;
      at = lineEnd + 1;
    }
  }
  return text + source.slice(at, end);
}

/**
 * Packs the blocks of one section into child chunks of at most `max` estimated tokens.
 *
 * Blocks that fit are kept whole and merged with their neighbours; bigger blocks are opened up:
 * lists and quotes into their items/children, tables into row groups (header repeated), code into
 * line groups (fences re-added), prose into sentences, then lines, words and characters.
 */
export class SectionPacker {
  private readonly measured = new Map<Unit, number>();
  private readonly atoms: Atom[] = [];

  constructor(
    private readonly source: string,
    private readonly max: number,
    private readonly min: number,
    /** Blocks of the section that no child holds (HTML comments), sorted: cut out of merged spans. */
    private readonly omitted: readonly Span[] = [],
  ) {}

  private text(start: number, end: number): string {
    return this.omitted.length === 0 ? this.source.slice(start, end) : sliceWithout(this.source, start, end, this.omitted);
  }

  add(unit: Unit): void {
    this.addUnit(unit, unit.start);
  }

  finish(): PackedChild[] {
    const children: PackedChild[] = [];
    for (const atom of this.mergeAtoms()) {
      if (atom.literal !== undefined) {
        if (atom.literal.trim() !== '') children.push({ content: atom.literal, tokenCount: estimateTokens(atom.literal) });
      } else {
        this.emitSpan(atom.start, atom.end, children);
      }
    }
    return children;
  }

  /**
   * Emits a source span as one child. The packing estimates are sums over pieces, which can be a
   * token or two off for whitespace joined at a seam; should the real estimate exceed the budget,
   * the span is halved at the line break nearest its middle (then at spaces for a single line).
   */
  private emitSpan(start: number, end: number, out: PackedChild[]): void {
    const content = this.text(start, end);
    if (content.trim() === '') return;
    const tokenCount = estimateTokens(content);
    if (tokenCount <= this.max) {
      out.push({ content, tokenCount });
      return;
    }
    const cut = this.middleLineBreak(start, end);
    if (cut < 0) {
      for (const piece of splitText(this.source, start, end, this.max, 2)) {
        const text = this.text(piece.start, piece.end);
        if (text.trim() !== '') out.push({ content: text, tokenCount: estimateTokens(text) });
      }
      return;
    }
    this.emitSpan(start, cut, out);
    this.emitSpan(cut + 1, end, out);
  }

  /** Offset of the `\n` closest to the middle of `[start, end)` (not at its edges), or -1. */
  private middleLineBreak(start: number, end: number): number {
    const middle = (start + end) >> 1;
    const after = this.source.indexOf('\n', middle);
    const before = this.source.lastIndexOf('\n', middle);
    const candidates = [after, before].filter((i) => i > start && i < end - 1);
    if (candidates.length === 0) return -1;
    return candidates.reduce((best, i) => (Math.abs(i - middle) < Math.abs(best - middle) ? i : best));
  }

  /** Token estimate of a unit, computed bottom-up once (a group costs its children and the gaps). */
  private measure(unit: Unit): number {
    const cached = this.measured.get(unit);
    if (cached !== undefined) return cached;
    let tokens: number;
    if (unit.kind === 'group') {
      tokens = 0;
      let previous = unit.start;
      for (const child of unit.children) {
        tokens += estimateRange(this.source, previous, child.start) + this.measure(child);
        previous = child.end;
      }
      tokens += estimateRange(this.source, previous, unit.end);
    } else {
      tokens = estimateRange(this.source, unit.start, unit.end);
    }
    this.measured.set(unit, tokens);
    return tokens;
  }

  /** `start` may be before `unit.start` to carry a container prefix (list marker, `>`) along. */
  private addUnit(unit: Unit, start: number): void {
    const prefixTokens = start < unit.start ? estimateRange(this.source, start, unit.start) : 0;
    const tokens = this.measure(unit) + prefixTokens;
    if (tokens <= this.max) {
      this.atoms.push({ start, end: unit.end, tokens });
      return;
    }
    switch (unit.kind) {
      case 'group':
        unit.children.forEach((child, index) => this.addUnit(child, index === 0 ? start : this.quotedLineStart(child.start)));
        return;
      case 'code':
        this.addCode(unit, start);
        return;
      case 'table':
        this.addTable(unit, start);
        return;
      default:
        for (const piece of splitText(this.source, start, unit.end, this.max)) this.atoms.push(piece);
    }
  }

  /**
   * Start of the line of `offset` when only block quote markers and spaces precede it there (so a
   * chunk starting inside a quote keeps its `>`), otherwise `offset`.
   */
  private quotedLineStart(offset: number): number {
    let i = offset;
    let quoted = false;
    for (; i > 0; i--) {
      const c = this.source.charCodeAt(i - 1);
      if (c === 0x3e) quoted = true;
      else if (c !== 0x20 && c !== 0x09) break;
    }
    return quoted && (i === 0 || this.source.charCodeAt(i - 1) === 0x0a) ? i : offset;
  }

  /** Line spans of `[start, end)` (without line endings). */
  private lines(start: number, end: number): Span[] {
    const lines: Span[] = [];
    let lineStart = start;
    while (lineStart <= end) {
      let lineEnd = this.source.indexOf('\n', lineStart);
      if (lineEnd < 0 || lineEnd > end) lineEnd = end;
      lines.push({ start: lineStart, end: lineEnd });
      if (lineEnd >= end) break;
      lineStart = lineEnd + 1;
    }
    return lines;
  }

  private addCode(unit: CodeUnit, start: number): void {
    const source = this.source;
    const lines = this.lines(unit.start, unit.end);
    const fenceChar = source.charCodeAt(unit.start);
    const fenced = (fenceChar === 0x60 || fenceChar === 0x7e) && lines.length >= 2;
    if (!fenced) {
      // Indented code: groups of whole lines, as plain source spans.
      this.addLineGroups(lines, this.max, (group) => this.atoms.push(group), start);
      return;
    }
    const openLine = lines[0] as Span;
    let fenceEnd = unit.start;
    while (source.charCodeAt(fenceEnd) === fenceChar) fenceEnd++;
    const fence = source.slice(unit.start, fenceEnd);
    const lastLine = lines[lines.length - 1] as Span;
    const lastText = source.slice(lastLine.start, lastLine.end).replace(/^[ \t>]*/, '');
    let run = 0;
    while (run < lastText.length && lastText.charCodeAt(run) === fenceChar) run++;
    const closed = run >= fence.length && lastText.slice(run).trim() === '';
    const body = lines.slice(1, closed ? -1 : undefined);
    const open = source.slice(start, openLine.end);
    const close = closed ? lastText.trimEnd() : fence;
    const overhead = estimateTokens(open) + estimateTokens(close) + 2;
    if (overhead * 2 > this.max || body.length === 0) {
      this.addLineGroups(lines, this.max, (group) => this.atoms.push(group), start);
      return;
    }
    this.addLineGroups(body, this.max - overhead, (group) => {
      this.pushLiteral(group, (span) => `${open}\n${source.slice(span.start, span.end)}\n${close}`);
    });
  }

  /**
   * Groups consecutive lines into pieces of at most `budget` tokens (a longer line is cut at
   * spaces/characters). Lines keep their indentation.
   */
  private addLineGroups(lines: readonly Span[], budget: number, emit: (group: Piece) => void, firstStart?: number): void {
    const pieces: Piece[] = [];
    lines.forEach((line, index) => {
      const start = index === 0 && firstStart !== undefined ? Math.min(firstStart, line.start) : line.start;
      if (start >= line.end || this.source.slice(start, line.end).trim() === '') return;
      const tokens = estimateRange(this.source, start, line.end);
      if (tokens <= budget) pieces.push({ start, end: line.end, tokens });
      else for (const piece of splitText(this.source, start, line.end, budget, 2)) pieces.push(piece);
    });
    for (const group of mergePieces(this.source, pieces, budget)) emit(group);
  }

  private addTable(unit: TableUnit, start: number): void {
    const source = this.source;
    const header = source.slice(start, unit.header.end).trimEnd();
    const headerTokens = estimateTokens(header);
    if (headerTokens * 2 > this.max) {
      // Header too big to repeat: header and rows as prose pieces.
      for (const piece of splitText(source, start, unit.header.end, this.max)) this.atoms.push(piece);
      for (const row of unit.rows) for (const piece of splitText(source, row.start, row.end, this.max)) this.atoms.push(piece);
      return;
    }
    const budget = this.max - headerTokens - 1;
    const pieces: Piece[] = [];
    for (const row of unit.rows) {
      const tokens = estimateRange(source, row.start, row.end);
      if (tokens <= budget) pieces.push({ start: row.start, end: row.end, tokens });
      else for (const piece of splitText(source, row.start, row.end, budget)) pieces.push(piece);
    }
    mergePieces(source, pieces, budget).forEach((group, index) => {
      if (index === 0) {
        // The first group directly follows the header in the source: keep it a plain span.
        const tokens = estimateRange(source, start, group.end);
        if (tokens <= this.max) {
          this.atoms.push({ start, end: group.end, tokens });
          return;
        }
      }
      this.pushLiteral(group, (span) => `${header}\n${source.slice(span.start, span.end)}`);
    });
  }

  /**
   * Adds synthesized content built around a source span; halves the span at a line break if the
   * result ends up over budget (the group estimate is a sum, the real one can differ slightly),
   * and falls back to plain pieces of the span for a single line that cannot fit with the wrapper.
   */
  private pushLiteral(span: Span, build: (span: Span) => string): void {
    const literal = build(span);
    const tokens = estimateTokens(literal);
    if (tokens <= this.max) {
      this.atoms.push({ start: span.start, end: span.end, tokens, literal });
      return;
    }
    const cut = this.middleLineBreak(span.start, span.end);
    if (cut < 0) {
      for (const piece of splitText(this.source, span.start, span.end, this.max, 2)) this.atoms.push(piece);
      return;
    }
    this.pushLiteral({ start: span.start, end: cut }, build);
    this.pushLiteral({ start: cut + 1, end: span.end }, build);
  }

  /**
   * Merges consecutive span atoms while they fit (evenly sized, like {@link mergePieces}), keeps
   * literal atoms alone, then folds children below `min` tokens into a neighbour when the result
   * still fits.
   */
  private mergeAtoms(): Atom[] {
    const out: Atom[] = [];
    let run: Piece[] = [];
    const flushRun = (): void => {
      for (const piece of mergePieces(this.source, run, this.max)) out.push(piece);
      run = [];
    };
    for (const atom of this.atoms) {
      if (atom.literal === undefined) {
        run.push(atom);
      } else {
        flushRun();
        out.push(atom);
      }
    }
    flushRun();
    if (this.min <= 0 || out.length < 2) return out;

    const result: Atom[] = [];
    for (const atom of out) {
      const previous = result[result.length - 1];
      if (previous !== undefined && previous.literal === undefined && atom.literal === undefined) {
        const small = atom.tokens < this.min || previous.tokens < this.min;
        if (small) {
          const tokens = estimateRange(this.source, previous.start, atom.end);
          if (tokens <= this.max) {
            result[result.length - 1] = { start: previous.start, end: atom.end, tokens };
            continue;
          }
        }
      }
      result.push(atom);
    }
    return result;
  }
}
