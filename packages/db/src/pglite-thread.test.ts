import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireStoreLock, createDatabase, EmbeddedDatabaseError, isUniqueViolation } from './index.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kb-thread-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('an embedded store on disk runs its database on a thread of its own', () => {
  it('answers queries without holding the event loop, keeps data across reopening, and reports errors with their SQLSTATE', async () => {
    const dataDir = tempDir();
    const database = await createDatabase({ kind: 'pglite', dataDir });
    expect(database.pglite).toBeUndefined();
    await database.migrate();
    await database.db.insertInto('namespaces').values({ id: 'user_docs' }).execute();
    const duplicate = await database.db
      .insertInto('namespaces')
      .values({ id: 'user_docs' })
      .execute()
      .then(() => undefined, (error: unknown) => error);
    expect(duplicate).toBeInstanceOf(EmbeddedDatabaseError);
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect((duplicate as EmbeddedDatabaseError).constraint).toBe('namespaces_pkey');
    // A failed statement inside a transaction rolls the transaction back.
    await expect(
      database.transaction(async (trx) => {
        await trx.insertInto('namespaces').values({ id: 'api_endpoints' }).execute();
        await sql`select 1 / 0`.execute(trx);
      }),
    ).rejects.toThrow(/division by zero/);

    // The event loop stays free while a statement runs: had it run on this thread, the loop
    // could not have turned before it ended. Counted in turns, not in timer firings per
    // millisecond, which a busy machine does not keep to.
    let turns = 0;
    let querying = true;
    const turn = () => {
      if (!querying) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    const started = performance.now();
    await sql`select count(*) from generate_series(1, 3000000) as g where g % 7 = 3`.execute(database.db);
    const elapsed = performance.now() - started;
    querying = false;
    expect(elapsed).toBeGreaterThan(50);
    expect(turns).toBeGreaterThanOrEqual(10);

    await database.close();
    await expect(database.db.selectFrom('namespaces').selectAll().execute()).rejects.toThrow();

    const reopened = await createDatabase({ kind: 'pglite', dataDir });
    try {
      const rows = await reopened.db.selectFrom('namespaces').select('id').orderBy('id').execute();
      expect(rows.map((r) => r.id)).toEqual(['user_docs']);
    } finally {
      await reopened.close();
    }
    // Creating a store starts PGlite twice (in its own process, then on the thread), and opens it once more.
  }, 90_000);

  it('fails to open with the error of the database, and releases the store for the next opener', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'PG_VERSION'), 'not a version\n');
    await expect(createDatabase({ kind: 'pglite', dataDir })).rejects.toThrow();
    // The store's lock was released with the failed start.
    acquireStoreLock(dataDir).release();
  });
});
