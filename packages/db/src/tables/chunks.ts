import type { ColumnType, Generated } from 'kysely';

/** A heading-bounded section of a document: the context a child chunk can widen to. */
export interface ParentChunksTable {
  id: Generated<string>;
  document_id: string;
  ordinal: number;
  heading_path: string;
  content: string;
}

/** A retrievable piece of a parent chunk, with its embedding. */
export interface ChunksTable {
  id: Generated<string>;
  document_id: string;
  parent_id: string | null;
  namespace: string;
  ordinal: number;
  heading_path: string;
  content: string;
  token_count: number;
  /** The page of its source the chunk starts on (a PDF's); null for documents without pages. */
  page: ColumnType<number | null, number | null | undefined, number | null>;
  /** The included fragment the text comes from (a shared file copied into pages); null for a page's own text. */
  fragment: ColumnType<string | null, string | null | undefined, string | null>;
  /** pgvector literal on write ('[1,2,3]'); read back as text on PGlite, number[] on pg with types registered. */
  embedding: ColumnType<string | number[] | null, string | null, string | null>;
  /**
   * The chunk's text as the hybrid ranking analyses it, `{"length", "counts"}` (see the
   * chunk_lexical_terms migration); null for a chunk written before it until the backfill reaches it.
   */
  lexical_terms: ColumnType<unknown, string | null | undefined, string | null>;
  /** Generated full-text vector; never written. */
  search_tsv: ColumnType<string, never, never>;
}
