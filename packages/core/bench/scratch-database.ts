/**
 * The store a benchmark runs against: a PGlite store in memory, or a scratch PostgreSQL database
 * (BENCH_DATABASE_URL, default the local server) created for the run and dropped after it, unless
 * BENCH_KEEP is set (its name is printed, to inspect query plans at the benchmark's size).
 */
import { randomBytes } from 'node:crypto';
import { createDatabase, type Database } from '@kb/db';
import pg from 'pg';

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function openScratchDatabase(store: string): Promise<{ database: Database; drop(): Promise<void> }> {
  if (store === 'pglite') {
    const database = await createDatabase({ kind: 'pglite-memory' });
    return { database, drop: () => database.close() };
  }
  const name = `kb_bench_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await createDatabase({ kind: 'postgres', databaseUrl: url.toString(), poolSize: 4 });
  return {
    database,
    async drop() {
      await database.close();
      if (process.env.BENCH_KEEP) {
        console.log(`  (kept the scratch database ${name})`);
        return;
      }
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}
