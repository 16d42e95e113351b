/** Whether texts are stored chunks or search queries: some models embed them differently. */
export type EmbeddingInputType = 'document' | 'query';

/** Turns texts into vectors. Every embedder of the service implements this. */
export interface Embedder {
  /** Model identifier recorded with the store (e.g. "voyage-3.5" or "local-lexical-v1"). */
  readonly model: string;
  /** Length of every vector this embedder returns. */
  readonly dimension: number;
  /** One vector per text, in order. Vectors are unit length (cosine = dot product). */
  embed(texts: readonly string[], inputType: EmbeddingInputType, signal?: AbortSignal): Promise<number[][]>;
}
