import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { isWriteStatement } from './free-space.ts';
import type { EmbeddedQueryable } from './pglite-thread.ts';

/** Called before each statement that writes; throws to refuse it (the free-space guard). */
export type WriteCheck = () => void;

/**
 * A Kysely dialect over an embedded PGlite database (in this thread or on its own, see
 * pglite-thread.ts). PGlite has a single connection, so the
 * driver hands it out to one user at a time: a transaction holds it from BEGIN to COMMIT and
 * queries of other callers wait, which keeps transactions from interleaving.
 */
/** When the embedded store's one connection was last in use: its upkeep waits for a quiet store. */
export class ConnectionActivity {
  private held = 0;
  private releasedAt = 0;

  acquired(): void {
    this.held++;
  }

  released(): void {
    this.held--;
    this.releasedAt = performance.now();
  }

  /** Milliseconds since the connection was last released; 0 while it is held. */
  quietFor(): number {
    return this.held > 0 ? 0 : performance.now() - this.releasedAt;
  }
}

export class PGliteDialect implements Dialect {
  constructor(
    private readonly pglite: EmbeddedQueryable,
    private readonly checkWrite?: WriteCheck,
    private readonly activity?: ConnectionActivity,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite, this.checkWrite, this.activity);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    pglite: EmbeddedQueryable,
    checkWrite?: WriteCheck,
    private readonly activity?: ConnectionActivity,
  ) {
    this.connection = new PGliteConnection(pglite, checkWrite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const previous = this.tail;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.activity?.acquired();
    this.connection.release = release;
    return this.connection;
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await conn.executeQuery(CompiledQuery.raw(`begin${isolation}`));
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    this.activity?.released();
    (conn as PGliteConnection).release?.();
  }

  async destroy(): Promise<void> {
    await this.tail;
  }
}

class PGliteConnection implements DatabaseConnection {
  release?: () => void;

  constructor(
    private readonly pglite: EmbeddedQueryable,
    private readonly checkWrite?: WriteCheck,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    if (this.checkWrite && isWriteStatement(compiledQuery.sql)) this.checkWrite();
    const result = await this.pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters], {
      rowMode: 'object',
    });
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      ...(affected !== undefined && !/^\s*select/i.test(compiledQuery.sql)
        ? { numAffectedRows: BigInt(affected) }
        : {}),
    };
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported on the embedded store');
  }
}
