import { LexicalVectorizer, type LexicalVectorizerOptions } from '@kb/content';
import type { Embedder, EmbeddingInputType } from './types.ts';

/**
 * The built-in embedder: no model download, no API key. Its vectors are lexical (a feature-hashed
 * bag of stemmed words, see @kb/content's LexicalVectorizer), computed on the caller's thread.
 */
export class LocalEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  readonly inProcess = true;
  /** Its vectors are feature-hashed bags of words. */
  readonly lexical = true;
  /** Word vectors rank worse alone than with the full-text ranking (docs/benchmarks.md). */
  readonly searchMode = 'hybrid' as const;
  private readonly vectorizer: LexicalVectorizer;

  constructor(options: LexicalVectorizerOptions = {}) {
    this.vectorizer = new LexicalVectorizer(options);
    this.model = this.vectorizer.model;
    this.dimension = this.vectorizer.dimension;
  }

  async embed(texts: readonly string[], inputType: EmbeddingInputType, signal?: AbortSignal): Promise<number[][]> {
    return (await this.embedVectors(texts, inputType, signal)).map((vector) => Array.from(vector));
  }

  /**
   * The same vectors as {@link embed}, as the Float32Arrays they are computed in: ingestion writes
   * them as they are (a copy into an array of numbers is 1,024 values a chunk for nothing).
   */
  async embedVectors(texts: readonly string[], inputType: EmbeddingInputType, signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) {
      if (i % 64 === 63) {
        // Yield now and then so a large batch neither blocks the event loop nor ignores an abort.
        await new Promise<void>((resolve) => setImmediate(resolve));
        signal?.throwIfAborted();
      }
      out.push(this.embedOne(texts[i]!, inputType));
    }
    return out;
  }

  /** The vector of one text, synchronously, as a Float32Array (same values as {@link embed}). */
  embedOne(text: string, _inputType: EmbeddingInputType): Float32Array {
    return this.vectorizer.vector(text);
  }
}
