import type { Item, Span, Unit } from './blocks.ts';
import { LineKind, LineScanner, atxText, newLine, readLine } from './lines.ts';

const DELIMITER_ROW = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const DEFINITION = /^ {0,3}\[((?:[^\]\\]|\\.){1,999})\]:/;

export interface FallbackSegment {
  items: Item[];
  definitionLabels: string[];
}

/**
 * Plain-text block splitter for input remark would take too long on (pathological nesting, huge
 * unsplittable regions, or past the document's parse budget). Linear in the input. It recognises
 * blank-line separated blocks, fenced code, HTML blocks, ATX headings and pipe tables; everything
 * else is prose, which the packer later cuts at sentence, line and word boundaries.
 */
export function fallbackSegment(source: string, start: number, end: number): FallbackSegment {
  const items: Item[] = [];
  const definitionLabels: string[] = [];
  const scanner = new LineScanner(source);
  const line = newLine();
  let blockStart = -1;
  let blockEnd = -1;
  let codeStart = -1;
  let codeEnd = -1;

  const flushText = (): void => {
    if (blockStart < 0) return;
    items.push({ type: 'block', unit: textOrTable(source, { start: blockStart, end: blockEnd }) });
    blockStart = -1;
  };

  for (let pos = start; pos < end; ) {
    readLine(source, pos, line);
    if (line.end > end) line.end = end;
    const kind = scanner.classify(line);
    switch (kind) {
      case LineKind.Blank:
        flushText();
        break;
      case LineKind.Heading:
        flushText();
        items.push({
          type: 'heading',
          start: line.first,
          end: line.end,
          depth: scanner.headingDepth,
          raw: atxText(source, line),
        });
        break;
      case LineKind.FenceOpen:
        flushText();
        codeStart = line.first;
        codeEnd = line.end;
        break;
      case LineKind.FenceBody:
        if (!line.blank) codeEnd = line.end;
        break;
      case LineKind.FenceClose:
        items.push({ type: 'block', unit: { kind: 'code', start: codeStart, end: line.end } });
        codeStart = -1;
        break;
      default:
        if (blockStart < 0) {
          blockStart = line.first;
          if (line.indent <= 3 && source.charCodeAt(line.first) === 0x5b /* [ */) {
            const match = DEFINITION.exec(source.slice(line.first, Math.min(line.end, line.first + 1024)));
            if (match?.[1] !== undefined) definitionLabels.push(match[1]);
          }
        }
        blockEnd = line.end;
    }
    pos = line.next;
  }
  if (codeStart >= 0) items.push({ type: 'block', unit: { kind: 'code', start: codeStart, end: codeEnd } });
  flushText();
  return { items, definitionLabels };
}

/** A pipe table when the block's second line is a delimiter row, otherwise prose. */
function textOrTable(source: string, span: Span): Unit {
  const firstEol = source.indexOf('\n', span.start);
  if (firstEol < 0 || firstEol >= span.end) return { kind: 'text', ...span };
  const headerLine = source.slice(span.start, firstEol);
  if (!headerLine.includes('|')) return { kind: 'text', ...span };
  let secondEol = source.indexOf('\n', firstEol + 1);
  if (secondEol < 0 || secondEol > span.end) secondEol = span.end;
  if (!DELIMITER_ROW.test(source.slice(firstEol + 1, secondEol))) return { kind: 'text', ...span };
  const rows: Span[] = [];
  let rowStart = secondEol + 1;
  while (rowStart < span.end) {
    let rowEnd = source.indexOf('\n', rowStart);
    if (rowEnd < 0 || rowEnd > span.end) rowEnd = span.end;
    if (rowEnd > rowStart) rows.push({ start: rowStart, end: rowEnd });
    rowStart = rowEnd + 1;
  }
  if (rows.length === 0) return { kind: 'text', ...span };
  return { kind: 'table', ...span, header: { start: span.start, end: secondEol }, rows };
}
