/** A retrieval unit: a few hundred tokens of Markdown inside one section. */
export interface ChildChunk {
  /** 0-based, unique across the whole document, in document order. */
  ordinal: number;
  /** Heading trail starting with the document title, joined by " > ". */
  headingPath: string;
  /** Markdown text (without the section heading line; the heading path carries it). */
  content: string;
  /** estimateTokens(content). */
  tokenCount: number;
  /** The included fragment the text comes from (see fragments.ts); absent for the page's own text. */
  fragment?: string;
}

/** A section of the document: a heading and everything up to the next heading. */
export interface ParentChunk {
  /** 0-based among parents, in document order. */
  ordinal: number;
  headingPath: string;
  /** The section's Markdown source, heading line included. */
  content: string;
  children: ChildChunk[];
}

export interface ChunkedDocument {
  /** Front matter (YAML, or simple TOML); `{}` when absent or invalid. */
  metadata: Record<string, unknown>;
  parents: ParentChunk[];
}

export interface ChunkOptions {
  /** Largest child, in estimated tokens (default 300). Children never exceed it. */
  maxChildTokens?: number;
  /**
   * Children smaller than this are merged into a neighbour of the same section when the result
   * still fits in maxChildTokens (default 40; 0 disables).
   */
  minChildTokens?: number;
}
