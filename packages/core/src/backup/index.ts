import type { Config } from '@kb/config';
import { RestoreRefusedError, type BackupHeader, type BackupStore, type Database } from '@kb/db';
import type { Embedder } from '../embeddings/types.ts';

/**
 * The configured store as backups read and write it: PostgreSQL by its URL (a connection of the
 * backup's own, for one snapshot and COPY), the embedded store through its open database (its
 * one connection belongs to the process that holds it).
 */
export function backupStoreOf(config: Config, database: Database): BackupStore {
  return config.storage.kind === 'postgres' ? { kind: 'postgres', databaseUrl: config.storage.databaseUrl } : { kind: 'embedded', database };
}

/**
 * Refuses a backup whose vectors the configured embedder could not search: another model, or
 * another dimension. A backup of a store that embedded nothing yet (no model recorded) fits any
 * embedder of its dimension.
 */
export function checkBackupEmbedding(header: BackupHeader, embedder: Pick<Embedder, 'model' | 'dimension'>): void {
  const { model, dimension } = header.embedding;
  if (dimension === embedder.dimension && (model === null || model === embedder.model)) return;
  throw new RestoreRefusedError(
    `The backup's vectors were made by ${model ?? 'no model yet'} (${dimension} dimensions), but this kb is configured for ` +
      `${embedder.model} (${embedder.dimension} dimensions). Restore it with the embedding settings it was made with ` +
      '(VOYAGE_API_KEY, VOYAGE_MODEL, KB_EMBEDDING_DIM), then run `kb reindex` after changing them if you mean to.',
  );
}
