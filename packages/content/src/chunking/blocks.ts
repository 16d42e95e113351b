/**
 * Intermediate representation between parsing and packing: the document as a flat sequence of
 * top-level headings and blocks, each block a tree of spans over the (normalised) source text.
 * Both the remark path and the plain-text fallback produce it.
 */

/** A half-open range `[start, end)` of the source. */
export interface Span {
  start: number;
  end: number;
}

/** Prose-like leaf: paragraph, HTML, definition, thematic break, nested heading, ... */
export interface TextUnit extends Span {
  kind: 'text';
}

/** Fenced or indented code. */
export interface CodeUnit extends Span {
  kind: 'code';
}

/** A table with a header. `header` covers the header and delimiter rows; `rows` the body rows. */
export interface TableUnit extends Span {
  kind: 'table';
  header: Span;
  rows: Span[];
}

/** A container whose children can be chunked separately: list, list item, block quote, ... */
export interface GroupUnit extends Span {
  kind: 'group';
  children: Unit[];
}

export type Unit = TextUnit | CodeUnit | TableUnit | GroupUnit;

export interface HeadingItem extends Span {
  type: 'heading';
  depth: number;
  /** Inline Markdown source of the heading text (markers removed, not yet plain text). */
  raw: string;
}

export interface BlockItem {
  type: 'block';
  unit: Unit;
}

export type Item = HeadingItem | BlockItem;
