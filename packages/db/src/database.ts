import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { Kysely, Migrator, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { VectorIndexDeferral, type BulkLoad } from './bulk-load.ts';
import { migrationProvider } from './migrations/index.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { PGliteThread, type EmbeddedQueryable } from './pglite-thread.ts';
import type { DB } from './schema.ts';
import { acquireStoreLock, type StoreLock } from './store-lock.ts';
import { ensureVectorIndex } from './vector-index.ts';

export type StorageOptions =
  | { kind: 'postgres'; databaseUrl: string; poolSize?: number }
  /** An embedded store on disk; its database runs on a thread of its own (pglite-thread.ts). */
  | { kind: 'pglite'; dataDir: string }
  /** An in-memory embedded store (tests, dry runs). */
  | { kind: 'pglite-memory' }
  /** An already open PGlite instance (tests cloning a migrated template). */
  | { kind: 'pglite-instance'; pglite: PGlite };

export interface DatabaseOptions {
  /** Dimension of the embedding column when the store is created. */
  embeddingDimension?: number;
  /** New chunks a bulk load must expect to set the embedded store's index aside (tests lower it). */
  bulkLoadMinChunks?: number;
}

export const DEFAULT_EMBEDDING_DIMENSION = 1024;

/**
 * Vector search settings of every connection, set as the connection starts (no extra round
 * trip for a search).
 * - hnsw.ef_search: candidates an HNSW scan keeps. pgvector's default, 40, loses half the recall
 *   on the built-in embedder's hashed vectors; 100 keeps nearly all of it.
 * - hnsw.iterative_scan: a filtered search keeps scanning the index until it has its LIMIT of
 *   matching rows, instead of filtering only the first ef_search candidates.
 */
export const VECTOR_SEARCH_SETTINGS = {
  'hnsw.ef_search': '100',
  'hnsw.iterative_scan': 'relaxed_order',
} as const;

export interface Database {
  readonly db: Kysely<DB>;
  readonly kind: 'postgres' | 'pglite';
  /** A human-readable description for logs: never includes credentials. */
  readonly description: string;
  /**
   * For nearest-neighbour queries. On PostgreSQL, a small pool of its own whose connections start
   * with enable_seqscan off: at ef_search 100 the planner would otherwise read and sort whole
   * small and mid-sized tables (exact, but it detoasts a 4 KB vector a row), and a per-search
   * setting costs a transaction's extra round trips. Null on PGlite, where the caller sets it in
   * a transaction (no round trips in process).
   */
  readonly vectorDb: Kysely<DB> | null;
  /**
   * Applies pending migrations (returns their names), then makes the vector index exist as this
   * version defines it; `beforeVectorIndexBuild` hears when that has to build it.
   */
  migrate(hooks?: { beforeVectorIndexBuild?(reason: 'missing' | 'outdated'): void }): Promise<string[]>;
  ping(): Promise<void>;
  /**
   * Starts a large write that says how many new chunks it expects; the embedded store may set its
   * vector index aside for it and build it once at the end (see bulk-load.ts).
   */
  bulkLoad(): BulkLoad;
  /** Whether a bulk load has the vector index set aside now. */
  vectorIndexDeferred(): boolean;
  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * The PGlite instance behind an in-memory or given embedded store (tests clone it); an
   * on-disk store's database runs on a thread of its own and has none here.
   */
  readonly pglite?: PGlite;
}

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

function describeUrl(url: string): string {
  const u = new URL(url);
  return `postgres ${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

export async function createDatabase(storage: StorageOptions, options: DatabaseOptions = {}): Promise<Database> {
  const embeddingDimension = options.embeddingDimension ?? DEFAULT_EMBEDDING_DIMENSION;

  if (storage.kind === 'postgres') {
    const poolSize = storage.poolSize ?? 10;
    const newPool = (max: number, settings: Record<string, string>) => {
      const pool = new pg.Pool({
        connectionString: storage.databaseUrl,
        max,
        // Startup parameters: applied by the server as the connection opens, no extra round trip.
        options: Object.entries(settings)
          .map(([name, value]) => `-c ${name}=${value}`)
          .join(' '),
      });
      // An idle client's error (database restarted) must not crash the process.
      pool.on('error', () => undefined);
      return pool;
    };
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: newPool(poolSize, VECTOR_SEARCH_SETTINGS) }) });
    const vectorDb = new Kysely<DB>({
      dialect: new PostgresDialect({ pool: newPool(Math.max(2, Math.ceil(poolSize / 2)), { ...VECTOR_SEARCH_SETTINGS, enable_seqscan: 'off' }) }),
    });
    return wrap(db, vectorDb, 'postgres', describeUrl(storage.databaseUrl), embeddingDimension, async () => {
      await Promise.all([db.destroy(), vectorDb.destroy()]);
    }, options.bulkLoadMinChunks);
  }

  let lock: StoreLock | undefined;
  let queryable: EmbeddedQueryable;
  let pglite: PGlite | undefined;
  let description: string;
  if (storage.kind === 'pglite') {
    lock = acquireStoreLock(storage.dataDir);
    try {
      queryable = await PGliteThread.open(storage.dataDir);
    } catch (error) {
      lock.release();
      throw error;
    }
    description = `embedded (PGlite) in ${storage.dataDir}`;
  } else if (storage.kind === 'pglite-memory') {
    queryable = pglite = await PGlite.create({ extensions: { vector } });
    description = 'embedded (PGlite) in memory';
  } else {
    queryable = pglite = storage.pglite;
    description = 'embedded (PGlite) instance';
  }
  for (const [name, value] of Object.entries(VECTOR_SEARCH_SETTINGS)) {
    await queryable.query('select set_config($1, $2, false)', [name, value]);
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(queryable) });
  const database = wrap(db, null, 'pglite', description, embeddingDimension, async () => {
    await db.destroy();
    await queryable.close();
    lock?.release();
  }, options.bulkLoadMinChunks);
  return pglite ? Object.assign(database, { pglite }) : database;
}

function wrap(
  db: Kysely<DB>,
  vectorDb: Kysely<DB> | null,
  kind: 'postgres' | 'pglite',
  description: string,
  embeddingDimension: number,
  close: () => Promise<void>,
  bulkLoadMinChunks?: number,
): Database {
  let closed = false;
  const deferral = new VectorIndexDeferral(db, kind, bulkLoadMinChunks);
  return {
    db,
    vectorDb,
    kind,
    description,
    async migrate(hooks) {
      const migrator = new Migrator({ db, provider: migrationProvider({ embeddingDimension, kind }) });
      const { error, results } = await migrator.migrateToLatest();
      if (error) {
        const failed = results?.find((r) => r.status === 'Error');
        throw new MigrationError(
          `Database migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      // A bulk load that died after dropping the vector index left it missing, or an earlier
      // version built it on another expression: build it (again).
      await ensureVectorIndex(db, kind, hooks?.beforeVectorIndexBuild);
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    bulkLoad() {
      return deferral.begin();
    },
    vectorIndexDeferred() {
      return deferral.deferred;
    },
    transaction(fn) {
      return db.transaction().execute(fn);
    },
    async close() {
      if (closed) return;
      closed = true;
      await close();
    },
  };
}
