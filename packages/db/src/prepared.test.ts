import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PREPARED_STATEMENTS, prepared } from './prepared.ts';
import { createTestDatabase, testStoreKinds, type TestDatabase } from './testing.ts';

describe.each(await testStoreKinds())('statements marked prepared (%s)', (kind) => {
  let store: TestDatabase;
  beforeAll(async () => {
    store = await createTestDatabase(kind);
  }, 120_000);
  afterAll(() => store?.drop());

  it('give the same rows as unmarked ones, with their parameters', async () => {
    const run = (value: number) => sql<{ doubled: number; label: string }>`${prepared} select ${value}::int * 2 as doubled, ${`n${value}`}::text as label`.execute(store.database.db);
    for (const value of [1, 2, 3]) expect((await run(value)).rows).toEqual([{ doubled: value * 2, label: `n${value}` }]);
  });

  it.runIf(kind === 'postgres')('are parsed once on a connection, under one name a text, and unmarked ones not at all', async () => {
    const names = await store.database.db.transaction().execute(async (trx) => {
      // A transaction keeps the statements on one connection.
      for (const value of [1, 2]) await sql`${prepared} select ${value}::int as one`.execute(trx);
      await sql`${prepared} select ${3}::int as other`.execute(trx);
      await sql`select ${4}::int as unmarked`.execute(trx);
      const listed = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements where statement ~ 'as (one|other|unmarked)' order by statement`.execute(trx);
      return listed.rows;
    });
    expect(names).toHaveLength(2);
    expect(names.map((n) => n.statement)).toEqual([expect.stringContaining('as one'), expect.stringContaining('as other')]);
    for (const { name } of names) expect(name).toMatch(/^kb_[\w-]{24}$/);
    expect(names[0]!.name).not.toBe(names[1]!.name);
  });

  it.runIf(kind === 'postgres')('are kept to a bound on a connection: texts beyond it run unnamed, and still answer', async () => {
    const count = await store.database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < MAX_PREPARED_STATEMENTS + 10; i++) {
        const rows = await sql<{ n: number }>`${prepared} select ${i}::int as n, ${sql.lit(i)} as bound_${sql.raw(String(i))}`.execute(trx);
        expect(rows.rows[0]!.n).toBe(i);
      }
      return (await sql<{ count: string }>`select count(*) from pg_prepared_statements`.execute(trx)).rows[0]!.count;
    });
    expect(Number(count)).toBe(MAX_PREPARED_STATEMENTS);
  });

  it('report a failing statement as an unmarked one does, and run again afterwards', async () => {
    const failing = () => sql`${prepared} select 1 / ${0}::int`.execute(store.database.db);
    await expect(failing()).rejects.toThrow(/division by zero/);
    await expect(failing()).rejects.toThrow(/division by zero/);
    expect((await sql<{ x: number }>`${prepared} select ${5}::int as x`.execute(store.database.db)).rows).toEqual([{ x: 5 }]);
  });
});
