import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFailureOf } from './errors.ts';
import { FreeSpaceGuard, isWriteStatement, StoreFullError } from './free-space.ts';
import { createTestDatabase, isPostgresAvailable, TEST_DATABASE_URL, type TestDatabase } from './testing.ts';

describe('storeFailureOf', () => {
  it('tells an unreachable or full store from a failing statement', () => {
    const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    expect(storeFailureOf(withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe('unreachable');
    expect(storeFailureOf(withCode('57P01', 'terminating connection due to administrator command'))).toBe('unreachable');
    expect(storeFailureOf(withCode('57P03', 'the database system is starting up'))).toBe('unreachable');
    expect(storeFailureOf(withCode('08006'))).toBe('unreachable');
    expect(storeFailureOf(withCode('53300', 'sorry, too many clients already'))).toBe('unreachable');
    expect(storeFailureOf(new Error('Connection terminated unexpectedly'))).toBe('unreachable');
    expect(storeFailureOf(new Error('timeout exceeded when trying to connect'))).toBe('unreachable');
    expect(storeFailureOf(withCode('53100', 'could not extend file "base/5/16748": No space left on device'))).toBe('disk-full');
    expect(storeFailureOf(new Error('wrapped', { cause: withCode('ENOSPC') }))).toBe('disk-full');
    expect(storeFailureOf(new StoreFullError('full'))).toBe('disk-full');
    // The statement's own fault stays a fault (or a 4xx decided elsewhere).
    expect(storeFailureOf(withCode('23505', 'duplicate key value'))).toBeUndefined();
    expect(storeFailureOf(withCode('42P01', 'relation "nope" does not exist'))).toBeUndefined();
    expect(storeFailureOf(new TypeError('x is undefined'))).toBeUndefined();
    expect(storeFailureOf(undefined)).toBeUndefined();
  });
});

describe('the free-space guard', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kb-free-space-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses writes only below its margin, saying how much is free', () => {
    expect(() => new FreeSpaceGuard(dir, 1).checkWrite()).not.toThrow();
    expect(() => new FreeSpaceGuard(dir, 0).checkWrite()).not.toThrow();
    const guard = new FreeSpaceGuard(dir, Number.MAX_SAFE_INTEGER);
    expect(() => guard.checkWrite()).toThrow(StoreFullError);
    expect(() => guard.checkWrite()).toThrow(/MB free, under the \d+ MB kept free \(KB_EMBEDDED_MIN_FREE_MB\)/);
  });

  it('reads the disk at most once a second', () => {
    let now = 0;
    const guard = new FreeSpaceGuard(dir, 1, () => now);
    const first = guard.freeBytes();
    expect(first).toBeGreaterThan(0);
    const reading = (guard as unknown as { reading: { freeBytes: number } }).reading;
    reading.freeBytes = 42;
    now = 999;
    expect(guard.freeBytes()).toBe(42);
    now = 1_000;
    expect(guard.freeBytes()).not.toBe(42);
  });

  it('knows which statements write', () => {
    for (const statement of [
      'insert into documents (id) values ($1)',
      '  update messages set content = $1',
      'delete from chunks where id = $1',
      'create index chunks_embedding on chunks using hnsw (embedding)',
      'drop index chunks_embedding',
      'with moved as (delete from a returning *) insert into b select * from moved',
      'with t as (update conversations set next_turn = next_turn + 1 returning id) select id from t',
      '      select out_ord, out_id, out_skipped from write_documents(\n $1::jsonb)',
    ]) {
      expect(isWriteStatement(statement), statement).toBe(true);
    }
    for (const statement of [
      'select * from documents',
      'with ranked as (select id from chunks) select * from ranked',
      'begin',
      'commit',
      'rollback',
      'select set_config($1, $2, false)',
      'create table if not exists "kysely_migration" ("name" varchar(255))',
      'vacuum (analyze) chunks',
    ]) {
      expect(isWriteStatement(statement), statement).toBe(false);
    }
  });
});

describe.runIf(await isPostgresAvailable())('a PostgreSQL session ended under a checked-out connection', () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await test?.drop();
  });

  it('fails the statements that needed it, does not crash the process, and the next query gets a new connection', async () => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      let failure: unknown;
      await test.database
        .transaction(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          // The session ends while its client is checked out and idle in the transaction: pg
          // emits 'error' on the client, which would be an uncaught exception without a listener.
          await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
          await new Promise((r) => setTimeout(r, 200));
          await sql`select 1`.execute(trx);
        })
        .catch((error: unknown) => (failure = error));
      expect(failure).toBeDefined();
      expect(storeFailureOf(failure)).toBe('unreachable');
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(test.database.db);
      expect(rows[0]!.one).toBe(1);
    } finally {
      await admin.end();
    }
  });
});
