/**
 * The store a benchmark runs against: `pglite`, a PGlite store in memory (on the benchmark's
 * thread); `pglite-disk`, an on-disk PGlite store in a temporary directory, removed after the run
 * (its database runs on a thread of its own, as the embedded server's does); or `postgres`, a
 * scratch PostgreSQL database (BENCH_DATABASE_URL, default the local server) created for the run
 * and dropped after it, unless BENCH_KEEP is set (its name is printed, to inspect query plans at
 * the benchmark's size).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  if (store === 'pglite-disk') {
    const dataDir = await mkdtemp(join(tmpdir(), 'kb-bench-'));
    const cacheMb = process.env.BENCH_EMBEDDED_CACHE_MB ? Number(process.env.BENCH_EMBEDDED_CACHE_MB) : undefined;
    const database = await createDatabase({ kind: 'pglite', dataDir, ...(cacheMb ? { cacheMb } : {}) });
    return {
      database,
      async drop() {
        await database.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  }
  if (store !== 'postgres') throw new Error(`unknown store ${store}: postgres, pglite or pglite-disk`);
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
