/** Whether texts are stored chunks or search queries: some models embed them differently. */
export type EmbeddingInputType = 'document' | 'query';

/** Turns texts into vectors. Every embedder of the service implements this. */
export interface Embedder {
  /** Model identifier recorded with the store (e.g. "voyage-3.5" or "local-lexical-v1"). */
  readonly model: string;
  /** Length of every vector this embedder returns. */
  readonly dimension: number;
  /**
   * True when vectors are computed on the caller's thread, with no I/O to wait for (the built-in
   * embedder). Bulk ingestion then prepares one batch at a time; a remote model's calls overlap.
   */
  readonly inProcess?: boolean;
  /**
   * True when vectors are bags of words (the built-in embedder): two texts are close only by the
   * words they share, and a match sharing no word with the query is a hashing collision. Search
   * then keeps only results that hold a word of the query, so a query that matches nothing
   * (`zzzxqv`) finds nothing instead of its nearest neighbours.
   */
  readonly lexical?: boolean;
  /** The search mode that ranks best with this embedder's vectors: the default of a search that names none (else semantic). */
  readonly searchMode?: 'semantic' | 'hybrid';
  /** One vector per text, in order. Vectors are unit length (cosine = dot product). */
  embed(texts: readonly string[], inputType: EmbeddingInputType, signal?: AbortSignal): Promise<number[][]>;
}
