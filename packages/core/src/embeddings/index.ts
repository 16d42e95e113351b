import type { Config } from '@kb/config';
import { DEFAULT_EMBEDDING_DIMENSION, type DB } from '@kb/db';
import { sql, type Kysely } from 'kysely';
import type { Logger } from '../logger.ts';
import { LocalEmbedder } from './local.ts';
import type { Embedder } from './types.ts';
import { VoyageEmbedder } from './voyage.ts';

export type { Embedder, EmbeddingInputType } from './types.ts';
export { LocalEmbedder } from './local.ts';
export { EmbeddingError, VoyageEmbedder } from './voyage.ts';

/** Voyage when VOYAGE_API_KEY is set, else the built-in local (lexical) embedder. */
export function createEmbedder(config: Config, logger?: Logger): Embedder {
  if (config.embedding.voyageApiKey) {
    return new VoyageEmbedder({
      apiKey: config.embedding.voyageApiKey,
      baseUrl: config.embedding.voyageBaseUrl,
      model: config.embedding.model,
      dimension: config.embedding.dimension,
      logger,
    });
  }
  return new LocalEmbedder({ dimension: config.embedding.dimension ?? DEFAULT_EMBEDDING_DIMENSION });
}

export class EmbeddingMismatchError extends Error {
  constructor(
    readonly stored: { model: string | null; dimension: number },
    readonly configured: { model: string; dimension: number },
  ) {
    super(
      `The store's vectors were made by ${stored.model ?? 'an unknown model'} (${stored.dimension} dimensions), ` +
        `but the configured embedder is ${configured.model} (${configured.dimension} dimensions). ` +
        'Run `pnpm kb reindex` to re-embed every chunk with the configured embedder, ' +
        'or restore the previous embedding settings (VOYAGE_API_KEY, VOYAGE_MODEL, KB_EMBEDDING_DIM).',
    );
    this.name = 'EmbeddingMismatchError';
  }
}

export interface StoreEmbedding {
  model: string | null;
  dimension: number;
}

export async function readStoreEmbedding(db: Kysely<DB>): Promise<StoreEmbedding> {
  const row = await db.selectFrom('store_meta').select('value').where('key', '=', 'embedding').executeTakeFirstOrThrow();
  const value = (typeof row.value === 'string' ? JSON.parse(row.value) : row.value) as Partial<StoreEmbedding>;
  return { model: value.model ?? null, dimension: Number(value.dimension) };
}

export async function writeStoreEmbedding(db: Kysely<DB>, value: StoreEmbedding): Promise<void> {
  await sql`update store_meta set value = ${JSON.stringify(value)}::jsonb where key = 'embedding'`.execute(db);
}

/**
 * A store's vectors are only comparable with vectors of the same model and dimension. The
 * first embedder to use a store is recorded; any other is refused until `kb reindex`.
 */
export async function checkStoreEmbedding(db: Kysely<DB>, embedder: Embedder): Promise<void> {
  const stored = await readStoreEmbedding(db);
  const configured = { model: embedder.model, dimension: embedder.dimension };
  if (stored.dimension !== configured.dimension) throw new EmbeddingMismatchError(stored, configured);
  if (stored.model === null) {
    await writeStoreEmbedding(db, configured);
    return;
  }
  if (stored.model !== configured.model) throw new EmbeddingMismatchError(stored, configured);
}
