import type { HeadingItem, Unit } from './blocks.ts';
import { fragmentMarker, stripFragmentMarkers } from './fragments.ts';
import { findFrontMatter, parseFrontMatter } from './front-matter.ts';
import { collapseWhitespace, headingPlainTexts } from './heading-text.ts';
import { SectionPacker, sliceWithout } from './pack.ts';
import { parseDocument } from './segment.ts';
import type { ChildChunk, ChunkOptions, ChunkedDocument, ParentChunk } from './types.ts';

/**
 * Identifies the splitting of a document as stored (this chunker, and what the ingestion
 * pipeline keeps of its output: ../prepare.ts); bump whenever the stored chunks for a
 * given input change. 2: children that repeat an earlier one of the document are left out.
 * 3: a section of nothing but pointers ("See [menus][].", link reference definitions, a lone
 * heading) makes no chunk, child or parent: what it points to is stored where it is written (the
 * document keeps its whole Markdown). Not bumped for fragment markers (fragments.ts): only text
 * that holds them splits differently, and no source wrote them before they existed. 4: blocks of
 * nothing but HTML comments are in no chunk.
 */
export const CHUNKER_VERSION = 'md-hier-4';
export const DEFAULT_MAX_CHILD_TOKENS = 300;
export const DEFAULT_MIN_CHILD_TOKENS = 40;
const LOWEST_MAX_CHILD_TOKENS = 16;
const HIGHEST_MAX_CHILD_TOKENS = 100_000;
const PATH_SEPARATOR = ' > ';

function resolveOptions(options: ChunkOptions | undefined): { max: number; min: number } {
  const requestedMax = options?.maxChildTokens;
  const max =
    typeof requestedMax === 'number' && Number.isFinite(requestedMax)
      ? Math.min(HIGHEST_MAX_CHILD_TOKENS, Math.max(LOWEST_MAX_CHILD_TOKENS, Math.floor(requestedMax)))
      : DEFAULT_MAX_CHILD_TOKENS;
  const requestedMin = options?.minChildTokens ?? DEFAULT_MIN_CHILD_TOKENS;
  const min = Number.isFinite(requestedMin) ? Math.min(Math.floor(max / 2), Math.max(0, Math.floor(requestedMin))) : 0;
  return { max, min };
}

/** Strips a byte order mark and normalises line endings to `\n`. */
function normalizeSource(content: string): string {
  let source = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  if (source.includes('\r')) source = source.replace(/\r\n?/g, '\n');
  return source;
}

function sameText(a: string, b: string): boolean {
  return a.normalize('NFKC').toLowerCase() === b.normalize('NFKC').toLowerCase();
}

/** Section text without leading blank lines and trailing whitespace. */
function sectionContent(source: string, start: number, end: number, omitted: readonly Unit[] = []): string {
  return sliceWithout(source, start, end, omitted).replace(/^(?:[ \t]*\n)+/, '').trimEnd();
}

/**
 * Whether a block is nothing but HTML comments (an author's note, a linter directive): rendered
 * Markdown does not show them, so no chunk holds them. Linear in the block's length.
 */
function isCommentOnly(text: string): boolean {
  let at = 0;
  let comments = 0;
  for (;;) {
    while (at < text.length && /\s/.test(text.charAt(at))) at++;
    if (at === text.length) return comments > 0;
    // The service's own markers (pages, included fragments) are read after splitting.
    if (!text.startsWith('<!--', at) || text.startsWith('<!-- kb:', at)) return false;
    const close = text.indexOf('-->', at + 4);
    if (close < 0) return false;
    comments++;
    at = close + 3;
  }
}

/** A line of link reference definitions: `[label]: destination "title"`. */
const DEFINITION_LINE = /^ {0,3}\[(?:[^\]\\]|\\.)+\]:[ \t]*\S+(?:[ \t]+(?:"[^"]*"|'[^']*'|\([^)]*\)))?[ \t]*$/;
/** An ATX heading line. */
const HEADING_LINE = /^ {0,3}#{1,6}(?:[ \t].*)?$/;
/** Inline links and images: `[text](url)`, `[text][label]`, `[text][]`, `[label]`. */
const LINK = /!?\[((?:[^\]\\]|\\.)*)\](?:\([^)]*\)|\[[^\]]*\])?/g;
/** Longest block read as a possible pointer or run of definitions. */
const MAX_POINTER_CHARS = 2_000;
/** Longest paragraph read as a possible pointer. */
const MAX_POINTER_PARAGRAPH_CHARS = 400;

/** How a pointer begins. */
const POINTER_OPENERS = new Set(['see', 'refer', 'for', 'also', 'read', 'visit', 'check']);
/** What a pointer says besides its links. */
const POINTER_WORDS = new Set([
  'see', 'also', 'refer', 'to', 'the', 'a', 'an', 'for', 'more', 'details', 'detail', 'information', 'info', 'on', 'about',
  'in', 'and', 'or', 'of', 'this', 'that', 'these', 'those', 'please', 'read', 'check', 'out', 'visit', 'documentation',
  'docs', 'page', 'section', 'function', 'method', 'example', 'examples', 'here', 'below', 'above', 'related', 'guide',
]);

/**
 * Whether a block says nothing of its own: link reference definitions only, a lone heading, or a
 * short paragraph that only points elsewhere ("See [configure menus][].", "See the [`css.PostCSS`]
 * function."). Such a block stands as no child chunk of its own; it stays in its section.
 */
export function isPointerOnly(text: string): boolean {
  return pointerKind(text) !== null;
}

/**
 * `markup`: a lone heading or nothing (never a child's content); `pointer`: link reference
 * definitions, or a short paragraph that only points elsewhere (a child's content only beside
 * other text of its section: measured on the Hugo docs, dropping definitions beside text too cost
 * hybrid search 0.016 nDCG@10); null: anything else.
 */
function pointerKind(text: string): 'markup' | 'pointer' | null {
  // Pointers are short; bounding the length also bounds what the patterns below can cost.
  if (text.length > MAX_POINTER_CHARS) return null;
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length === 0) return 'markup';
  if (lines.every((line) => DEFINITION_LINE.test(line))) return 'pointer';
  if (lines.length === 1 && HEADING_LINE.test(lines[0]!)) return 'markup';
  if (lines.length > 2 || text.length > MAX_POINTER_PARAGRAPH_CHARS || !/\[/.test(text)) return null;
  const words: string[] = [];
  const withoutLinks = text.replace(LINK, (_link, inner: string) => {
    words.push(inner);
    return ' ';
  });
  if (words.length === 0) return null;
  const rest = withoutLinks.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const pointer = rest[0] !== undefined && POINTER_OPENERS.has(rest[0]) && rest.every((w) => POINTER_WORDS.has(w));
  return pointer ? 'pointer' : null;
}

/** Blocks of a section that come from one place: the page itself (no fragment) or one fragment. */
interface Run {
  fragment: string | undefined;
  units: Unit[];
}

interface OpenSection {
  start: number;
  headingPath: string;
  /** A new run starts at every fragment marker; runs are packed apart, so no child mixes them. */
  runs: Run[];
}

/**
 * Splits a Markdown document into parent chunks (one per section, at top-level headings) holding
 * child chunks of at most `maxChildTokens` estimated tokens. Deterministic; never throws on
 * malformed Markdown or front matter; linear-time on any input (see segment.ts).
 */
export function chunkMarkdown(input: { title: string; content: string }, options?: ChunkOptions): ChunkedDocument {
  const { max, min } = resolveOptions(options);
  const title = collapseWhitespace(typeof input.title === 'string' ? input.title : '');
  const source = normalizeSource(typeof input.content === 'string' ? input.content : '');
  const frontMatter = findFrontMatter(source);
  const metadata = parseFrontMatter(frontMatter);
  const bodyStart = frontMatter?.end ?? 0;
  if (!/\S/.test(source.slice(bodyStart))) return { metadata, parents: [] };

  const { items, definitionLabels } = parseDocument(source, bodyStart);
  const headings = items.filter((item): item is HeadingItem => item.type === 'heading');
  const headingTexts = headingPlainTexts(
    headings.map((heading) => heading.raw),
    definitionLabels,
  );

  const parents: ParentChunk[] = [];
  let childOrdinal = 0;
  const close = (section: OpenSection, end: number): void => {
    const all = section.runs.flatMap((run) => run.units);
    if (all.length === 0) return;
    // A section of nothing but pointers makes no children: on its own such a chunk holds the words
    // of a link target, not of an answer, and crowds a result list. Beside other text, a pointer
    // stays with its neighbours.
    const comments = all.filter((unit) => unit.kind === 'text' && isCommentOnly(source.slice(unit.start, unit.end)));
    const commentSet = new Set(comments);
    const kinds = new Map(all.map((unit) => [unit, commentSet.has(unit) ? 'markup' : unit.kind === 'text' ? pointerKind(source.slice(unit.start, unit.end)) : null]));
    if ([...kinds.values()].every((kind) => kind !== null)) return;
    const children: ChildChunk[] = [];
    for (const run of section.runs) {
      const packer = new SectionPacker(source, max, min, comments);
      for (const unit of run.units) if (kinds.get(unit) !== 'markup') packer.add(unit);
      for (const child of packer.finish()) {
        children.push({
          ordinal: childOrdinal++,
          headingPath: section.headingPath,
          content: child.content,
          tokenCount: child.tokenCount,
          ...(run.fragment !== undefined ? { fragment: run.fragment } : {}),
        });
      }
    }
    if (children.length === 0) return;
    parents.push({
      ordinal: parents.length,
      headingPath: section.headingPath,
      content: stripFragmentMarkers(sectionContent(source, section.start, end, comments)),
      children,
    });
  };

  const trail: Array<{ depth: number; text: string }> = [];
  const pathOf = (): string => {
    const parts = trail.map((entry) => entry.text);
    if (parts[0] !== undefined && sameText(parts[0], title)) parts.shift();
    return [title, ...parts].filter((part) => part !== '').join(PATH_SEPARATOR);
  };

  // The fragments open at this point of the document, innermost last.
  const fragments: string[] = [];
  const newSection = (start: number, headingPath: string): OpenSection => ({ start, headingPath, runs: [{ fragment: fragments.at(-1), units: [] }] });
  let section = newSection(bodyStart, title);
  let headingIndex = 0;
  for (const item of items) {
    if (item.type === 'block') {
      const marker = item.unit.kind === 'text' ? fragmentMarker(source.slice(item.unit.start, item.unit.end)) : null;
      if (marker === null) {
        section.runs.at(-1)!.units.push(item.unit);
        continue;
      }
      // A closing marker without an opening one closes nothing.
      if (marker === 'close') fragments.pop();
      else fragments.push(marker.open);
      section.runs.push({ fragment: fragments.at(-1), units: [] });
      continue;
    }
    close(section, item.start);
    while (trail.length > 0 && (trail[trail.length - 1]?.depth ?? 0) >= item.depth) trail.pop();
    trail.push({ depth: item.depth, text: headingTexts[headingIndex++] ?? '' });
    section = newSection(item.start, pathOf());
  }
  close(section, source.length);
  return { metadata, parents };
}
