import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { dropVectorIndex, ensureVectorIndex } from './vector-index.ts';

/**
 * New chunks a load must expect before the embedded store sets its vector index aside: below
 * this, inserting into the index costs a few seconds at most.
 */
export const DEFERRED_INDEX_MIN_CHUNKS = 1000;

/**
 * A large write (an OpenAPI spec, a wiki space) that tells the store how many new chunks it
 * expects. On the embedded store, inserting a vector into the HNSW index costs about 5 ms of
 * WebAssembly (the graph's neighbour lists are updated on disk, recomputing their distances),
 * while building the index once over all vectors costs about 1 ms a vector. So when a load
 * expects at least {@link DEFERRED_INDEX_MIN_CHUNKS} new chunks and at least as many as the
 * store already holds, the index is dropped for the load and built again when the last such load
 * ends: the load pays at most twice its own size in building, and is several times faster.
 *
 * Meanwhile searches read every chunk (exact, and slower on a large store), and the build itself
 * holds the database (about a second per 1,000 chunks of the whole store). A load that dies
 * midway leaves the index missing; the next start builds it (Database.migrate).
 *
 * PostgreSQL keeps its index: other processes search and write the same store, and building an
 * index blocks writes to the table.
 */
export interface BulkLoad {
  /** Adds to the new chunks this load expects to write (an estimate is fine). */
  expect(chunks: number): Promise<void>;
  /**
   * Sets the index aside for this load whatever it expects, for a process that has the store to
   * itself and decides by its own measure (`kb ingest-folder`, `kb eval`). `worthIt` is asked only
   * where the store would set its index aside (never on PostgreSQL). Returns whether it is aside.
   */
  setIndexAside(worthIt?: () => Promise<boolean>): Promise<boolean>;
  /**
   * Ends the load (call it however the load ended). If this was the last load the index was set
   * aside for, builds it; resolves when searches use it again. Returns whether it built.
   */
  end(): Promise<boolean>;
}

/** The embedded store's loads in progress, which decide together when the index is set aside. */
export class VectorIndexDeferral {
  private holders = 0;
  private dropped = false;
  /** Acquisitions and releases, one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly kind: 'postgres' | 'pglite',
    private readonly minChunks = DEFERRED_INDEX_MIN_CHUNKS,
  ) {}

  /** Whether the index is set aside for a load now (writes then cost no index inserts). */
  get deferred(): boolean {
    return this.dropped;
  }

  begin(): BulkLoad {
    let expected = 0;
    /** Chunks the store held when the load first expected enough (counted once). */
    let existing: number | undefined;
    let holding = false;
    let ended = false;
    const hold = async () => {
      holding = true;
      this.holders++;
      if (!this.dropped) {
        await dropVectorIndex(this.db);
        this.dropped = true;
      }
    };
    return {
      expect: (chunks) =>
        this.serial(async () => {
          if (this.kind !== 'pglite' || holding || ended) return;
          expected += chunks;
          if (expected < this.minChunks) return;
          existing ??= (await sql<{ n: number }>`select count(*)::int as n from chunks`.execute(this.db)).rows[0]!.n;
          if (expected < existing) return;
          await hold();
        }),
      setIndexAside: async (worthIt) => {
        if (this.kind !== 'pglite' || ended) return false;
        if (!holding && worthIt && !(await worthIt())) return false;
        return this.serial(async () => {
          if (ended) return false;
          if (!holding) await hold();
          return true;
        });
      },
      end: () =>
        this.serial(async () => {
          if (ended) return false;
          ended = true;
          if (!holding) return false;
          this.holders--;
          if (this.holders > 0 || !this.dropped) return false;
          // Should the build fail, the next load to set the index aside (or the next start) builds it.
          await ensureVectorIndex(this.db, this.kind);
          this.dropped = false;
          return true;
        }),
    };
  }

  private serial<T>(step: () => Promise<T>): Promise<T> {
    const run = this.queue.then(step);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
