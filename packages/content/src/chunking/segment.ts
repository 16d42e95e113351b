import type { Item } from './blocks.ts';
import { fallbackSegment } from './fallback-blocks.ts';
import { LineKind, LineScanner, nestingDepth, newLine, readLine } from './lines.ts';
import { parseSegment } from './remark-blocks.ts';

/**
 * Bounding the parse time.
 *
 * micromark (under remark) has super-linear corners at the block level: every container that
 * closes copies the event list of the whole document (quadratic in the number of lists and quotes),
 * long runs of lazy or nested lines are quadratic, deep nesting is worse (10,000 nested list
 * markers on one line take minutes), and it manages only ~10-40k lines per second. So:
 *
 * 1. long documents are cut into segments at points where no block can continue (a non-indented
 *    line after a blank line, or an ATX heading, outside fenced code and HTML blocks) and each
 *    segment is parsed on its own (each character is still parsed once). The line scanner that
 *    finds those points is approximate (e.g. it cannot tell a fence inside a list item from a
 *    top-level one), so each parse is checked: when a segment ends inside a block that would
 *    have continued (unclosed fence or HTML block), it is parsed again together with the next;
 * 2. each segment gets a deterministic cost estimate (lines, nesting, table cells, characters);
 *    segments with pathological nesting, too many unsplittable lines, or past the document's
 *    budget are handled by the linear plain-text splitter instead of remark.
 *
 * Cost units were calibrated so that one unit is at most ~1 microsecond of remark time (0.2-0.85
 * across synthetic worst cases, ~0.65 on real documentation, measured warm on the dev machine).
 */
const TARGET_SEGMENT_LINES = 128;
const TARGET_SEGMENT_CHARS = 8 * 1024;
/** Unsplittable regions longer than this go to the fallback (quadratic remark behaviour). */
const MAX_SEGMENT_LINES = 2_000;
/** Container nesting (see nestingDepth) beyond which a segment is not given to remark. */
const MAX_NESTING = 40;
const COST_PER_LINE = 30;
const COST_PER_NESTING_LEVEL = 50;
const COST_PER_PIPE = 30;
/**
 * Characters that can start an inline construct (* _ [ ] ! < & \ ` ~): each one ends micromark's
 * current data token even with inline parsing disabled, so runs of them are slow.
 */
const COST_PER_INLINE_MARKER = 1.5;
const CHARS_PER_COST = 4;
/** Link reference and footnote definitions (lines starting with `[`) are slow to tokenize. */
const COST_PER_BRACKET_LINE = 30;
/**
 * remark budget of one document (~1 s of parsing); segments past it go to the fallback splitter.
 * Real documentation costs ~1.4M units per MB, so only the tail of multi-megabyte documents (or of
 * 1 MB documents made of tiny lines) is affected.
 */
const DOCUMENT_BUDGET = 1_200_000;

export interface Segment {
  start: number;
  end: number;
  lines: number;
  cost: number;
  /** Nesting too deep for remark. */
  pathological: boolean;
}

/**
 * Cuts `[0, source.length)` into segments; the first one starts at 0 so that remark sees the front
 * matter (which ends at `bodyStart`), the scan itself starts at `bodyStart`.
 */
export function segmentDocument(source: string, bodyStart: number): Segment[] {
  const segments: Segment[] = [];
  const scanner = new LineScanner(source);
  const line = newLine();
  let current: Segment = { start: 0, end: 0, lines: 0, cost: 0, pathological: false };
  for (let pos = bodyStart; pos < source.length; pos = line.next) {
    readLine(source, pos, line);
    const kind = scanner.classify(line);
    if (
      scanner.canStartSegment &&
      current.lines > 0 &&
      (current.lines >= TARGET_SEGMENT_LINES || pos - current.start >= TARGET_SEGMENT_CHARS)
    ) {
      current.end = pos;
      segments.push(current);
      current = { start: pos, end: 0, lines: 0, cost: 0, pathological: false };
    }
    current.lines++;
    let cost = COST_PER_LINE + (line.end - line.start) / CHARS_PER_COST;
    if (kind !== LineKind.FenceBody && kind !== LineKind.FenceClose && !line.blank) {
      const depth = nestingDepth(source, line, MAX_NESTING);
      if (depth > MAX_NESTING) current.pathological = true;
      cost += depth * COST_PER_NESTING_LEVEL;
      if (source.charCodeAt(line.first) === 0x5b /* [ */) cost += COST_PER_BRACKET_LINE;
      cost += markerCost(source, line.first, line.end);
    }
    current.cost += cost;
  }
  current.end = source.length;
  segments.push(current);
  return segments;
}

/** Cost of the table pipes and inline-construct characters of a line. */
function markerCost(source: string, start: number, end: number): number {
  let pipes = 0;
  let markers = 0;
  for (let i = start; i < end; i++) {
    switch (source.charCodeAt(i)) {
      case 0x7c: // |
        pipes++;
        break;
      case 0x2a: // *
      case 0x5f: // _
      case 0x5b: // [
      case 0x5d: // ]
      case 0x21: // !
      case 0x3c: // <
      case 0x26: // &
      case 0x5c: // \
      case 0x60: // `
      case 0x7e: // ~
        markers++;
        break;
      default:
    }
  }
  return pipes * COST_PER_PIPE + markers * COST_PER_INLINE_MARKER;
}

export interface ParsedDocument {
  items: Item[];
  definitionLabels: string[];
  /** Segments handled by the plain-text fallback (for diagnostics and tests). */
  fallbackSegments: number;
}

/** Headings and blocks of the whole document, in order. */
export function parseDocument(source: string, bodyStart: number, budget = DOCUMENT_BUDGET): ParsedDocument {
  const segments = segmentDocument(source, bodyStart);
  const items: Item[] = [];
  const definitionLabels: string[] = [];
  let spent = 0;
  let fallbackSegments = 0;
  for (let index = 0; index < segments.length; index++) {
    let segment = segments[index] as Segment;
    let lines = segment.lines;
    let cost = segment.cost;
    let pathological = segment.pathological;
    const start = segment.start;
    for (;;) {
      const useRemark = !pathological && lines <= MAX_SEGMENT_LINES && spent + cost <= budget;
      if (!useRemark) {
        const fallback = fallbackSegment(source, Math.max(start, bodyStart), segment.end);
        for (const item of fallback.items) items.push(item);
        for (const label of fallback.definitionLabels) definitionLabels.push(label);
        fallbackSegments++;
        break;
      }
      spent += cost;
      const parsed = parseSegment(source, start, segment.end);
      const next = segments[index + 1];
      if (parsed.continuesPastEnd && next !== undefined) {
        // The scanner lost track of a fence or HTML block (e.g. one opened inside a list item):
        // the next segment is part of that block, parse them together.
        index++;
        segment = next;
        lines += next.lines;
        cost += next.cost;
        pathological ||= next.pathological;
        continue;
      }
      for (const item of parsed.items) items.push(item);
      for (const label of parsed.definitionLabels) definitionLabels.push(label);
      break;
    }
  }
  return { items, definitionLabels, fallbackSegments };
}
