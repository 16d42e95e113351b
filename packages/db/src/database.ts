import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { Kysely, Migrator, PostgresDialect, sql, type RawBuilder, type Transaction } from 'kysely';
import pg from 'pg';
import { VectorIndexDeferral, type BulkLoad } from './bulk-load.ts';
import { migrationProvider } from './migrations/index.ts';
import { ConnectionActivity, PGliteDialect } from './pglite-dialect.ts';
import { PGliteThread, type EmbeddedQueryable } from './pglite-thread.ts';
import type { DB } from './schema.ts';
import { EmbeddedVacuum } from './embedded-vacuum.ts';
import { PreparingClient } from './prepared.ts';
import { FreeSpaceGuard } from './free-space.ts';
import { ReplicaSet, type ReplicaOptions, type ReplicaStatus, type ServerPools } from './replicas.ts';
import { acquireStoreLock, type StoreLock } from './store-lock.ts';
import { ensureVectorIndex, vectorDistance } from './vector-index.ts';
import { toVectorArrayBinary, toVectorBinary, toVectorLiteral } from './vector.ts';

export type StorageOptions =
  | {
      kind: 'postgres';
      databaseUrl: string;
      poolSize?: number;
      /** Streaming replicas of that database for reads that tolerate lag (see replicas.ts). */
      replicaUrls?: readonly string[];
    }
  /** An embedded store on disk; its database runs on a thread of its own (pglite-thread.ts). */
  | {
      kind: 'pglite';
      dataDir: string;
      /** PostgreSQL's shared_buffers in MB: the embedded database's page cache, most of its memory. */
      cacheMb?: number;
      /** Writes are refused (StoreFullError) while the data directory's disk has less free space. */
      minFreeMb?: number;
    }
  /** An in-memory embedded store (tests, dry runs). */
  | { kind: 'pglite-memory' }
  /** An already open PGlite instance (tests cloning a migrated template). */
  | { kind: 'pglite-instance'; pglite: PGlite };

export interface DatabaseOptions {
  /** Dimension of the embedding column when the store is created. */
  embeddingDimension?: number;
  /** New chunks a bulk load must expect to set the embedded store's index aside (tests lower it). */
  bulkLoadMinChunks?: number;
  /** How often the embedded store looks for tables to vacuum (tests shorten it; see embedded-vacuum.ts). */
  embeddedVacuumIntervalMs?: number;
  /** Lag bound, check timings and state changes of the replicas (see replicas.ts). */
  replicas?: ReplicaOptions;
}

/**
 * What a read that tolerates lag needs of the store: on PostgreSQL with replicas, `db` and
 * `withVectorSearch` read through them (round robin, falling back to the primary); otherwise they
 * are the primary's.
 */
export type ReadStore = Pick<Database, 'db' | 'vectorParameter' | 'vectorArrayParameter' | 'vectorDistance' | 'withVectorSearch'>;

export const DEFAULT_EMBEDDING_DIMENSION = 1024;

/**
 * Search settings of every connection, set as the connection starts (no extra round trip for a
 * search).
 * - hnsw.ef_search: candidates an HNSW scan keeps. pgvector's default, 40, loses half the recall
 *   on the built-in embedder's hashed vectors; 100 keeps nearly all of it.
 * - hnsw.iterative_scan: a filtered search keeps scanning the index until it has its LIMIT of
 *   matching rows, instead of filtering only the first ef_search candidates.
 */
export const VECTOR_SEARCH_SETTINGS = {
  'hnsw.ef_search': '100',
  'hnsw.iterative_scan': 'relaxed_order',
  // The planner's default (4) prices a page read as a disk seek; a search store's pages are in
  // memory. At 4 it read every chunk to test a hybrid query's terms rather than the full-text
  // index's matches: 6.9 ms against 0.5 ms for a fifth of 2,700 chunks.
  random_page_cost: '1.1',
} as const;

/** Rows of vectors per insert statement on PGlite (see Database.vectorRowsPerStatement). */
const EMBEDDED_INSERT_ROWS = 128;

/**
 * Chunks per write transaction of a bulk load on the embedded store, whose single connection
 * other requests wait for: about 80 ms of inserting into the vector index ...
 */
const EMBEDDED_WRITE_CHUNKS = 16;
/**
 * ... or about 150 ms while a load has the index set aside (bulk-load.ts), where a transaction's
 * commit is then a large share of a small one's cost.
 */
const EMBEDDED_DEFERRED_WRITE_CHUNKS = 128;

/**
 * The store, and what its engine (PostgreSQL or PGlite) needs of the code that uses it: callers
 * ask it how to pass vectors, how to run a vector search and how large to make their writes, and
 * never which engine it is.
 */
/** What a store tells the metrics: its connection pools (PostgreSQL), its vacuum runs (embedded). */
export interface StoreStats {
  pool?: { total: number; idle: number; waiting: number };
  vacuumRuns?: number;
}

export interface Database {
  readonly db: Kysely<DB>;
  /** Read at each metrics scrape. */
  stats?(): StoreStats;
  /**
   * Reads that may lag the primary by up to the replicas' lag bound: searches, answers' and the
   * FAQ's retrieval, lists. Anything that writes, or must read what was just written, uses `db`.
   * A call inside readFromPrimary() reads from the primary here too.
   */
  readonly reads: ReadStore;
  /** The replicas and whether each is in rotation (none without replicas). */
  replicaStatus(): ReplicaStatus[];
  /** A human-readable description for logs: never includes credentials. */
  readonly description: string;
  /**
   * Whether other processes may use this store at the same time (PostgreSQL): work that must
   * happen once (an FAQ's generation) then coordinates through the database, not in memory.
   */
  readonly shared: boolean;
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
  /**
   * Makes the vector index exist as this version builds it for the embedding column's current
   * dimension (creating or rebuilding it; see vector-index.ts).
   */
  ensureVectorIndex(): Promise<'present' | 'created' | 'rebuilt'>;
  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
  /**
   * A query vector as a statement parameter (cast it with `::vector`): pgvector's binary form on
   * PostgreSQL; a vector literal on PGlite, which takes parameters as text.
   */
  vectorParameter(vector: ArrayLike<number>): unknown;
  /**
   * Vectors as one `vector[]` expression: a binary array on PostgreSQL (the type's oid is looked
   * up once, through `executor`); vector literals on PGlite.
   */
  vectorArrayParameter(executor: Kysely<DB>, vectors: ReadonlyArray<ArrayLike<number>>): Promise<RawBuilder<unknown>>;
  /**
   * The cosine distance between an embedding column and a query vector parameter as the index
   * compares them (see vector-index.ts's vectorDistance): order by it to use the index.
   */
  vectorDistance(dimension: number, column: RawBuilder<unknown>, queryVector: unknown): RawBuilder<number>;
  /**
   * Runs a nearest-neighbour query with sequential scans off. pgvector costs an index scan by
   * ef_search; at 100 the planner prefers reading and sorting the whole table in small and
   * mid-sized stores, which is exact but detoasts a 4 KB vector per row (85 ms a search at 8k
   * chunks embedded, 16 ms at 3k on PostgreSQL). On PostgreSQL the query runs on a small pool of
   * its own whose connections start that way (a per-search setting costs a transaction's extra
   * round trips); on PGlite in a transaction that sets it (no round trips in process).
   */
  withVectorSearch<T>(query: (executor: Kysely<DB>) => Promise<T>): Promise<T>;
  /**
   * Rows of vectors an insert statement should hold at most. PGlite takes vectors as text: a
   * statement's literals are built, and its parameters copied to the database's thread, on the
   * caller's thread in one piece (about 0.5 ms a vector), so a large document goes in statements
   * of 128 rows and requests get their turn between. Unbounded on PostgreSQL.
   */
  readonly vectorRowsPerStatement: number;
  /**
   * Chunks a write transaction of a bulk load should hold at most while this process serves
   * requests: the embedded store has one connection, and inserting into its vector index takes
   * milliseconds a chunk, so other requests wait for each transaction (16 chunks, or 128 while a
   * load has the index set aside). Unbounded on PostgreSQL, where requests have other connections.
   */
  servingWriteChunks(): number;
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
    const vectorPoolSize = Math.max(2, Math.ceil(poolSize / 2));
    const newPool = (url: string, max: number, settings: Record<string, string>, replica: boolean) => {
      const pool = new pg.Pool({
        connectionString: url,
        max,
        Client: PreparingClient,
        // Startup parameters: applied by the server as the connection opens, no extra round trip.
        options: Object.entries(settings)
          .map(([name, value]) => `-c ${name}=${value}`)
          .join(' '),
        // A replica that does not answer is passed over quickly for the next one.
        ...(replica ? { connectionTimeoutMillis: 3_000 } : {}),
      });
      // A connection's error (the database restarted, or ended the session) must not crash the
      // process: the pool reports idle clients' errors, and every client gets a listener of its
      // own for the time it is checked out (in a transaction, between statements). The statement
      // in flight fails on its own, and the pool drops the broken client when it comes back.
      pool.on('error', () => undefined);
      pool.on('connect', (client) => client.on('error', () => undefined));
      return pool;
    };
    // Nearest-neighbour queries (withVectorSearch) use connections that start with sequential scans off.
    const serverPools = (url: string, replica: boolean): ServerPools => ({
      name: describeUrl(url),
      general: newPool(url, poolSize, VECTOR_SEARCH_SETTINGS, replica),
      vector: newPool(url, vectorPoolSize, { ...VECTOR_SEARCH_SETTINGS, enable_seqscan: 'off' }, replica),
    });
    const primary = serverPools(storage.databaseUrl, false);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: primary.general }) });
    const vectorDb = new Kysely<DB>({ dialect: new PostgresDialect({ pool: primary.vector }) });
    const replicaUrls = storage.replicaUrls ?? [];
    const replicas = new ReplicaSet(primary, replicaUrls.map((url) => serverPools(url, true)), options.replicas);
    const reads =
      replicas.size > 0
        ? {
            db: new Kysely<DB>({ dialect: new PostgresDialect({ pool: replicas.pool('general') }) }),
            vectorDb: new Kysely<DB>({ dialect: new PostgresDialect({ pool: replicas.pool('vector') }) }),
            status: () => replicas.status(),
          }
        : undefined;
    replicas.start();
    const description = describeUrl(storage.databaseUrl) + (replicas.size > 0 ? ` (reads also on ${replicaUrls.map(describeUrl).join(', ')})` : '');
    const database = wrap(db, vectorDb, 'postgres', description, embeddingDimension, async () => {
      await replicas.end();
      await Promise.all([db.destroy(), vectorDb.destroy()]);
    }, options.bulkLoadMinChunks, reads);
    // The primary's pools (metrics): the connections writes and read-your-writes queries wait for.
    const stats = (): StoreStats => ({
      pool: [primary.general, primary.vector].reduce(
        (sum, p) => ({ total: sum.total + p.totalCount, idle: sum.idle + p.idleCount, waiting: sum.waiting + p.waitingCount }),
        { total: 0, idle: 0, waiting: 0 },
      ),
    });
    return Object.assign(database, { stats });
  }

  let lock: StoreLock | undefined;
  let queryable: EmbeddedQueryable;
  let pglite: PGlite | undefined;
  let description: string;
  let guard: FreeSpaceGuard | undefined;
  if (storage.kind === 'pglite') {
    if (storage.minFreeMb) guard = new FreeSpaceGuard(storage.dataDir, storage.minFreeMb * 1024 * 1024);
    lock = acquireStoreLock(storage.dataDir);
    try {
      queryable = await PGliteThread.open(storage.dataDir, storage.cacheMb);
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
  const activity = new ConnectionActivity();
  const db = new Kysely<DB>({ dialect: new PGliteDialect(queryable, guard && (() => guard.checkWrite()), activity) });
  const vacuum = new EmbeddedVacuum(db, undefined, options.embeddedVacuumIntervalMs, () => activity.quietFor());
  const database = wrap(db, null, 'pglite', description, embeddingDimension, async () => {
    await vacuum.stop();
    await db.destroy();
    await queryable.close();
    lock?.release();
  }, options.bulkLoadMinChunks);
  const stats = (): StoreStats => ({ vacuumRuns: vacuum.runs });
  return pglite ? Object.assign(database, { pglite, stats }) : Object.assign(database, { stats });
}

function wrap(
  db: Kysely<DB>,
  vectorDb: Kysely<DB> | null,
  kind: 'postgres' | 'pglite',
  description: string,
  embeddingDimension: number,
  close: () => Promise<void>,
  bulkLoadMinChunks?: number,
  replicaReads?: { db: Kysely<DB>; vectorDb: Kysely<DB>; status(): ReplicaStatus[] },
): Database {
  let closed = false;
  const deferral = new VectorIndexDeferral(db, kind, bulkLoadMinChunks);
  /** The `vector` type's oid, looked up once (PostgreSQL). */
  let vectorType: Promise<number> | undefined;
  const database: Omit<Database, 'reads'> = {
    db,
    replicaStatus: () => replicaReads?.status() ?? [],
    description,
    shared: kind === 'postgres',
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
    ensureVectorIndex() {
      return ensureVectorIndex(db, kind);
    },
    transaction(fn) {
      return db.transaction().execute(fn);
    },
    vectorParameter(vector) {
      return kind === 'postgres' ? toVectorBinary(vector) : toVectorLiteral(vector);
    },
    async vectorArrayParameter(executor, vectors) {
      if (kind === 'pglite') return sql`${vectors.map((v) => toVectorLiteral(v))}::text[]::vector[]`;
      vectorType ??= sql<{ oid: number }>`select 'vector'::regtype::oid as oid`.execute(executor).then((r) => Number(r.rows[0]!.oid));
      let oid: number;
      try {
        oid = await vectorType;
      } catch (error) {
        vectorType = undefined;
        throw error;
      }
      return sql`${toVectorArrayBinary(vectors, oid)}::vector[]`;
    },
    vectorDistance(dimension, column, queryVector) {
      return vectorDistance(kind, dimension, column, queryVector);
    },
    withVectorSearch(query) {
      if (vectorDb) return query(vectorDb);
      return db.transaction().execute(async (trx) => {
        await sql`select set_config('enable_seqscan', 'off', true)`.execute(trx);
        return query(trx);
      });
    },
    vectorRowsPerStatement: kind === 'pglite' ? EMBEDDED_INSERT_ROWS : Number.POSITIVE_INFINITY,
    servingWriteChunks() {
      if (kind === 'postgres') return Number.POSITIVE_INFINITY;
      return deferral.deferred ? EMBEDDED_DEFERRED_WRITE_CHUNKS : EMBEDDED_WRITE_CHUNKS;
    },
    async close() {
      if (closed) return;
      closed = true;
      await close();
    },
  };
  const reads: ReadStore = replicaReads
    ? {
        db: replicaReads.db,
        vectorParameter: database.vectorParameter,
        vectorArrayParameter: database.vectorArrayParameter,
        vectorDistance: database.vectorDistance,
        withVectorSearch: (query) => query(replicaReads.vectorDb),
      }
    : database;
  return Object.assign(database, { reads });
}
