import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** How often the embedded store looks for tables to vacuum. */
export const EMBEDDED_VACUUM_INTERVAL_MS = 5_000;
/** A table is vacuumed once it has grown by this share of its size at its last vacuum ... */
const GROWTH_FRACTION = 0.2;
/** ... and by at least this many pages (64 KB): small tables are not worth it. */
const GROWTH_MIN_PAGES = 8;
/** A scheduled round waits for the store to have been idle this long (its statements queue behind the round's) ... */
const QUIET_MS = 100;
/** ... but is put off for at most this many intervals in a row. */
const MAX_DEFERRED_ROUNDS = 12;

/**
 * PostgreSQL's autovacuum, as far as searches need it, for PGlite, which runs none. Without it a
 * freshly written table has no planner statistics and no visibility map: on the Hugo docs the
 * statement that counts a hybrid query's terms took 15 ms instead of 2.6, and a search 32 ms
 * instead of 21 (docs/benchmarks.md). A table is vacuumed and analysed when it has grown by a
 * fifth since its last vacuum, read from its size on disk (PGlite's statistics collector does not
 * report changed rows); a rewrite (a document ingested again) grows it too.
 *
 * The store has one connection, so a round (its look at the tables' sizes, then each vacuum)
 * delays whatever request comes meanwhile: given how long the store has been idle
 * (`quietFor`), a scheduled round waits for an idle moment, within a bound.
 */
export class EmbeddedVacuum {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private stopped = false;
  private deferred = 0;
  /** Tables vacuumed since the store opened (metrics). */
  runs = 0;

  constructor(
    private readonly db: Kysely<DB>,
    /** A failed round (the store closing under it) is tried again at the next one. */
    private readonly onError: (error: unknown) => void = () => undefined,
    intervalMs: number = EMBEDDED_VACUUM_INTERVAL_MS,
    /** Milliseconds since the store's connection was last in use (0: in use now). */
    private readonly quietFor?: () => number,
  ) {
    this.timer = setInterval(() => void this.scheduled(), intervalMs);
    this.timer.unref();
  }

  private scheduled(): Promise<void> | undefined {
    if (this.quietFor && this.quietFor() < QUIET_MS && this.deferred < MAX_DEFERRED_ROUNDS) {
      this.deferred++;
      return undefined;
    }
    this.deferred = 0;
    return this.run();
  }

  /** Vacuums and analyses the tables that have grown enough; one round at a time. */
  run(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.round()
      .catch((error: unknown) => {
        if (!this.stopped) this.onError(error);
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async round(): Promise<void> {
    const { rows } = await sql<{ name: string }>`
      select c.relname as name
      from pg_class c
      where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
        and pg_relation_size(c.oid) / current_setting('block_size')::int
            > ${1 + GROWTH_FRACTION}::float8 * greatest(c.relpages, 0) + ${GROWTH_MIN_PAGES}`.execute(this.db);
    for (const { name } of rows) {
      if (this.stopped) return;
      await sql`vacuum (analyze) ${sql.table(name)}`.execute(this.db);
      this.runs++;
    }
  }

  /** Stops the rounds and waits for one under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
