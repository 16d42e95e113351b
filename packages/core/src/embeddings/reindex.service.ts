import type { Database } from '@kb/db';
import { embeddingText } from '@kb/content';
import { ChunkEmbeddingsRepository } from './chunk-embeddings.repository.ts';
import { readStoreEmbedding, writeStoreEmbedding } from './index.ts';
import type { Embedder } from './types.ts';

/** Chunks per embedding call of a re-embedding, unless told otherwise. */
export const REINDEX_BATCH = 256;

/**
 * Re-embeds every chunk of the store with the configured embedder and records it as the store's
 * (`kb reindex`): needed after changing the embedding model or dimension, which the store refuses
 * until then. Searches are incomplete while it runs.
 */
export class ReindexService {
  private readonly chunks: ChunkEmbeddingsRepository;

  constructor(
    private readonly database: Database,
    private readonly embedder: Embedder,
  ) {
    this.chunks = new ChunkEmbeddingsRepository(database);
  }

  /** Whether the store's vectors were made by the configured embedder already. */
  async isCurrent(): Promise<boolean> {
    const stored = await readStoreEmbedding(this.database.db);
    return stored.model === this.embedder.model && stored.dimension === this.embedder.dimension;
  }

  /**
   * Re-embeds every chunk, `batch` chunks per embedding call; a new dimension empties the column
   * and rebuilds the vector index at the end. Returns how many chunks were re-embedded.
   */
  async reindex(
    options: { batch?: number; onProgress?(done: number, total: number): void; onIndexRebuild?(): void } = {},
  ): Promise<number> {
    const { model, dimension } = this.embedder;
    const resize = (await readStoreEmbedding(this.database.db)).dimension !== dimension;
    if (resize) await this.chunks.resize(dimension);
    const total = await this.chunks.count();
    let done = 0;
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = await this.chunks.page(after, options.batch ?? REINDEX_BATCH);
      if (rows.length === 0) break;
      const vectors = await this.embedder.embed(rows.map((r) => embeddingText(r.headingPath, r.content)), 'document');
      await this.chunks.update(rows.map((r) => r.id), vectors);
      done += rows.length;
      after = rows[rows.length - 1]!.id;
      options.onProgress?.(done, total);
    }
    if (resize) {
      options.onIndexRebuild?.();
      await this.database.ensureVectorIndex();
    }
    await writeStoreEmbedding(this.database.db, { model, dimension });
    return done;
  }
}
