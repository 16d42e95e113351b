import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDatabase, type Database } from './database.ts';
import { EmbeddedVacuum, EMBEDDED_VACUUM_INTERVAL_MS } from './embedded-vacuum.ts';
import { ConnectionActivity, PGliteDialect } from './pglite-dialect.ts';
import { Kysely } from 'kysely';
import type { DB } from './schema.ts';

describe('EmbeddedVacuum (autovacuum for the embedded store)', () => {
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
  });

  const pages = async (table: string) =>
    (await sql<{ relpages: number; analysed: boolean }>`
      select relpages, exists (select 1 from pg_stats where tablename = ${table}) as analysed
      from pg_class where relname = ${table}`.execute(database!.db)).rows[0]!;

  it('vacuums and analyses a table that has grown, and leaves it alone until it grows again', async () => {
    database = await createDatabase({ kind: 'pglite-memory' });
    const vacuum = new EmbeddedVacuum(database.db, (error) => {
      throw error;
    }, 3_600_000);
    await sql`create table grown (id int, body text)`.execute(database.db);
    await sql`create table small (id int)`.execute(database.db);
    await sql`insert into grown select g, repeat('x', 200) from generate_series(1, 5000) g`.execute(database.db);
    await sql`insert into small values (1)`.execute(database.db);
    expect(await pages('grown')).toEqual({ relpages: 0, analysed: false });

    await vacuum.run();
    const grown = await pages('grown');
    expect(grown.relpages).toBeGreaterThan(100);
    expect(grown.analysed).toBe(true);
    // Tables under 64 KB are not worth a vacuum.
    expect(await pages('small')).toEqual({ relpages: 0, analysed: false });

    // Nothing grew: nothing done.
    await vacuum.run();
    expect((await pages('grown')).relpages).toBe(grown.relpages);
    await sql`insert into grown select g, repeat('y', 200) from generate_series(1, 2000) g`.execute(database.db);
    await vacuum.run();
    expect((await pages('grown')).relpages).toBeGreaterThan(grown.relpages);
    await vacuum.stop();
  });

  it('the embedded store runs it on its own', async () => {
    database = await createDatabase({ kind: 'pglite-memory' }, { embeddedVacuumIntervalMs: 200 });
    await sql`create table grown (id int, body text)`.execute(database.db);
    await sql`insert into grown select g, repeat('x', 200) from generate_series(1, 5000) g`.execute(database.db);
    await vi.waitFor(async () => expect((await pages('grown')).analysed).toBe(true), { timeout: 20_000, interval: 100 });
  });

  it('a scheduled round waits for an idle store, for at most twelve intervals in a row', async () => {
    database = await createDatabase({ kind: 'pglite-memory' });
    vi.useFakeTimers();
    try {
      let quiet = 0;
      const vacuum = new EmbeddedVacuum(database.db, undefined, EMBEDDED_VACUUM_INTERVAL_MS, () => quiet);
      const run = vi.spyOn(vacuum, 'run').mockResolvedValue();
      // Busy at every tick: put off twelve times, then run anyway.
      await vi.advanceTimersByTimeAsync(12 * EMBEDDED_VACUUM_INTERVAL_MS);
      expect(run).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(EMBEDDED_VACUUM_INTERVAL_MS);
      expect(run).toHaveBeenCalledTimes(1);
      // Busy again: put off; idle at the next tick: run there.
      await vi.advanceTimersByTimeAsync(EMBEDDED_VACUUM_INTERVAL_MS);
      expect(run).toHaveBeenCalledTimes(1);
      quiet = 1_000;
      await vi.advanceTimersByTimeAsync(EMBEDDED_VACUUM_INTERVAL_MS);
      expect(run).toHaveBeenCalledTimes(2);
      run.mockRestore();
      await vacuum.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('the store is idle only while no statement or transaction holds its connection', async () => {
    database = await createDatabase({ kind: 'pglite-memory' });
    const activity = new ConnectionActivity();
    const db = new Kysely<DB>({ dialect: new PGliteDialect((database as Database & { pglite: ConstructorParameters<typeof PGliteDialect>[0] }).pglite, undefined, activity) });
    await db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      expect(activity.quietFor()).toBe(0);
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(activity.quietFor()).toBeGreaterThanOrEqual(25);
  });
});
