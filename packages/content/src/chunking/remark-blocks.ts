import type { Nodes, RootContent } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified, type Data, type Processor } from 'unified';
import type { Item, Span, Unit } from './blocks.ts';

/**
 * micromark constructs that only matter inside paragraphs and headings. The splitter works on
 * source slices and only needs the block structure, so they are switched off: this removes every
 * inline pathology of micromark (e.g. `*_` repeated 10,000 times takes seconds in emphasis
 * resolution, and grows quadratically). Heading text is resolved separately (heading-text.ts).
 */
const INLINE_CONSTRUCTS = [
  'attention',
  'autolink',
  'characterEscape',
  'characterReference',
  'codeText',
  'hardBreakEscape',
  'htmlText',
  'labelEnd',
  'labelStartImage',
  'labelStartLink',
  // remark-gfm
  'wwwAutolink',
  'protocolAutolink',
  'emailAutolink',
  'gfmFootnoteCall',
  'gfmPotentialFootnoteCall',
  'strikethrough',
];

type FromMarkdownExtensions = NonNullable<Data['fromMarkdownExtensions']>;
type FromMarkdownExtension = Extract<FromMarkdownExtensions[number], { transforms?: unknown }>;

/**
 * remark plugin (use it after remark-gfm): block structure only. Disables the inline constructs
 * and drops the tree transforms of the mdast extensions (GFM literal autolinks are found by a
 * recursive tree walk that overflows the stack on deeply nested input, and are useless here).
 */
function remarkBlocksOnly(this: Processor): undefined {
  const data = this.data();
  data.micromarkExtensions = [...(data.micromarkExtensions ?? []), { disable: { null: INLINE_CONSTRUCTS } }];
  const withoutTransforms = (extension: FromMarkdownExtension): FromMarkdownExtension =>
    extension.transforms ? { ...extension, transforms: [] } : extension;
  data.fromMarkdownExtensions = (data.fromMarkdownExtensions ?? []).map((entry) =>
    Array.isArray(entry) ? entry.map(withoutTransforms) : withoutTransforms(entry),
  );
  return undefined;
}

/** For the first segment of a document (the only place front matter can be). */
const firstSegmentProcessor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkFrontmatter, ['yaml', 'toml'])
  .use(remarkBlocksOnly)
  .freeze();

/** For later segments: a `---` line at their start is a thematic break, not front matter. */
const laterSegmentProcessor = unified().use(remarkParse).use(remarkGfm).use(remarkBlocksOnly).freeze();

export interface ParsedSegment {
  items: Item[];
  /**
   * The last block of the segment would have continued into the next segment had the document
   * been parsed whole (unclosed fenced code or HTML block): the caller must parse both together.
   */
  continuesPastEnd: boolean;
  /** Labels of the top-level link reference definitions (to resolve links in headings). */
  definitionLabels: string[];
}

/**
 * Parses `source.slice(start, end)` with remark; spans in the result are offsets in `source`.
 * `start` must be 0 or a segment boundary (see segment.ts).
 */
export function parseSegment(source: string, start: number, end: number): ParsedSegment {
  const processor = start === 0 ? firstSegmentProcessor : laterSegmentProcessor;
  const tree = processor.parse(source.slice(start, end));
  const items: Item[] = [];
  const definitionLabels: string[] = [];
  let last: RootContent | undefined;
  for (const node of tree.children) {
    const span = spanOf(node, start);
    if (span === null) continue;
    last = node;
    const type: string = node.type;
    if (type === 'yaml' || type === 'toml') continue;
    if (node.type === 'definition') definitionLabels.push(node.label ?? node.identifier);
    if (node.type === 'heading') {
      const first = node.children[0];
      const final = node.children[node.children.length - 1];
      const from = first ? spanOf(first, start) : null;
      const to = final ? spanOf(final, start) : null;
      const raw = from && to ? source.slice(from.start, to.end) : '';
      items.push({ type: 'heading', start: span.start, end: span.end, depth: node.depth, raw });
      continue;
    }
    items.push({ type: 'block', unit: toUnit(node, span, source, start) });
  }
  const lastSpan = last ? spanOf(last, start) : null;
  const continuesPastEnd =
    last !== undefined &&
    lastSpan !== null &&
    ((last.type === 'code' && isOpenFence(source, lastSpan)) || (last.type === 'html' && isOpenHtml(source, lastSpan, end)));
  return { items, continuesPastEnd, definitionLabels };
}

function spanOf(node: Nodes, offset: number): Span | null {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined || end < start) return null;
  return { start: start + offset, end: end + offset };
}

function toUnit(node: Nodes, span: Span, source: string, offset: number): Unit {
  switch (node.type) {
    case 'list':
    case 'listItem':
    case 'blockquote':
    case 'footnoteDefinition': {
      const children: Unit[] = [];
      for (const child of node.children) {
        const childSpan = spanOf(child, offset);
        if (childSpan !== null) children.push(toUnit(child, childSpan, source, offset));
      }
      return children.length > 0 ? { kind: 'group', ...span, children } : { kind: 'text', ...span };
    }
    case 'code':
      return { kind: 'code', ...span };
    case 'table': {
      const rows: Span[] = [];
      for (const row of node.children) {
        const rowSpan = spanOf(row, offset);
        if (rowSpan !== null) rows.push(rowSpan);
      }
      const firstBody = rows[1];
      if (firstBody === undefined) return { kind: 'text', ...span };
      const headerEnd = source.lastIndexOf('\n', firstBody.start - 1);
      if (headerEnd <= span.start) return { kind: 'text', ...span };
      return { kind: 'table', ...span, header: { start: span.start, end: headerEnd }, rows: rows.slice(1) };
    }
    default:
      return { kind: 'text', ...span };
  }
}

/** True for fenced code whose closing fence is missing. */
function isOpenFence(source: string, span: Span): boolean {
  const fenceChar = source.charCodeAt(span.start);
  if (fenceChar !== 0x60 && fenceChar !== 0x7e) return false; // indented code
  let run = span.start;
  while (run < span.end && source.charCodeAt(run) === fenceChar) run++;
  const openLength = run - span.start;
  const lastLineStart = source.lastIndexOf('\n', span.end - 1) + 1;
  if (lastLineStart <= span.start) return true; // only the opening line
  let i = lastLineStart;
  while (i < span.end && /[ \t>]/.test(source.charAt(i))) i++;
  const closeStart = i;
  while (i < span.end && source.charCodeAt(i) === fenceChar) i++;
  if (i - closeStart < openLength) return true;
  return source.slice(i, span.end).trim() !== '';
}

/** End conditions of the HTML block kinds 1-5 (CommonMark 4.6), by start pattern. */
const HTML_BLOCK_ENDS: ReadonlyArray<[RegExp, RegExp]> = [
  [/^<(?:script|pre|style|textarea)(?:[\s>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^<!--/, /-->/],
  [/^<\?/, /\?>/],
  [/^<![A-Za-z]/, />/],
  [/^<!\[CDATA\[/, /\]\]>/],
];

/**
 * True for an HTML block that the next line would still belong to: a kind 1-5 block whose end
 * condition was not met, or a kind 6-7 block not followed by a blank line before `segmentEnd`.
 */
function isOpenHtml(source: string, span: Span, segmentEnd: number): boolean {
  const firstLineEnd = source.indexOf('\n', span.start);
  const firstLine = source.slice(span.start, firstLineEnd < 0 || firstLineEnd > span.end ? span.end : firstLineEnd);
  const lastLine = source.slice(source.lastIndexOf('\n', span.end - 1) + 1, span.end);
  for (const [startPattern, endPattern] of HTML_BLOCK_ENDS) {
    if (!startPattern.test(firstLine)) continue;
    // The end condition may be on the first line itself, after the start.
    const endLine = lastLine === firstLine || span.end - span.start === firstLine.length ? firstLine.slice(2) : lastLine;
    return !endPattern.test(endLine);
  }
  return !/\n[ \t]*\n/.test(source.slice(span.end, segmentEnd));
}
