import type { Config } from '@kb/config';
import { createDatabase, type Database } from '@kb/db';
import { checkStoreEmbedding, createEmbedder } from './embeddings/index.ts';
import type { Embedder } from './embeddings/types.ts';
import type { Logger } from './logger.ts';

export interface OpenStoreOptions {
  logger: Logger;
  /** An open database to use instead of the configured one (tests); `close()` leaves it open. */
  database?: Database;
  /** A temporary in-memory embedded store instead of the configured one (`kb eval`). */
  inMemory?: boolean;
  /** PostgreSQL connections of this process (default KB_DB_POOL_SIZE). */
  poolSize?: number;
  /**
   * Whether to refuse a store whose vectors another embedder made (default true). `kb reindex`
   * opens such a store to re-embed it; commands that embed nothing need not check.
   */
  checkEmbedding?: boolean;
  /** Hears that opening has to build the vector index first (default: logged). */
  beforeVectorIndexBuild?(reason: 'missing' | 'outdated'): void;
}

export interface Store {
  database: Database;
  /** The configured embedder (the store was checked against it unless told otherwise). */
  embedder: Embedder;
  /** Migrations this opening applied. */
  migrations: string[];
  /** Whether this opening built the vector index (missing, or defined otherwise by another version). */
  vectorIndexBuilt: boolean;
  /** Closes the database (unless it was handed in). */
  close(): Promise<void>;
}

/**
 * Every process's way to its store: configuration -> embedder -> database -> migrations (and the
 * vector index as this version defines it) -> the store's embedder checked against the configured
 * one. A failure closes what was opened. An embedded store held by another process is refused
 * with StoreLockedError, which says what to do instead.
 */
export async function openStore(config: Config, options: OpenStoreOptions): Promise<Store> {
  const { logger } = options;
  const embedder = createEmbedder(config, logger);
  const storage = config.storage;
  // A new store's vector column takes the configured embedder's dimension.
  const database =
    options.database ??
    (await createDatabase(
      options.inMemory
        ? { kind: 'pglite-memory' }
        : storage.kind === 'postgres'
          ? { kind: 'postgres', databaseUrl: storage.databaseUrl, poolSize: options.poolSize ?? storage.poolSize, replicaUrls: storage.replicaUrls }
          : { kind: 'pglite', dataDir: storage.dataDir, cacheMb: storage.cacheMb, minFreeMb: storage.minFreeMb },
      {
        embeddingDimension: embedder.dimension,
        replicas: {
          maxLagMs: storage.kind === 'postgres' ? storage.replicaMaxLagMs : undefined,
          onChange: (status, error) =>
            status.state === 'up'
              ? logger.info({ replica: status.name }, 'read replica back in rotation')
              : logger.warn({ replica: status.name, state: status.state, reason: status.reason, err: error }, 'read replica out of rotation: reads go to the others or the primary'),
        },
      },
    ));
  const close = options.database ? async () => undefined : () => database.close();
  const beforeVectorIndexBuild =
    options.beforeVectorIndexBuild ??
    ((reason: 'missing' | 'outdated') =>
      logger.info({ reason }, 'building the vector index: searches and writes wait until it is done (30-60 s per 100,000 chunks on PostgreSQL)'));
  try {
    let vectorIndexBuilt = false;
    const migrations = await database.migrate({
      beforeVectorIndexBuild: (reason) => {
        vectorIndexBuilt = true;
        beforeVectorIndexBuild(reason);
      },
    });
    if (migrations.length > 0) logger.info({ migrations }, 'database migrated');
    if (options.checkEmbedding !== false) await checkStoreEmbedding(database.db, embedder);
    return { database, embedder, migrations, vectorIndexBuilt, close };
  } catch (error) {
    await close();
    throw error;
  }
}
