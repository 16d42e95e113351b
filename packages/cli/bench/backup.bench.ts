/**
 * Backup and restore rates on PostgreSQL against PostgreSQL's own COPY of the same tables, in
 * the same run (docs/benchmarks.md, "Backup and restore").
 *
 *   pnpm --filter @kb/cli bench                        # 2,000 chunks (short)
 *   BENCH_CHUNKS=20000 pnpm --filter @kb/cli bench
 *
 * - backup: `writeBackup` to a file (one snapshot, COPY TO, per-row checksums, gzip level 1);
 *   limit: COPY TO STDOUT of the same tables and columns into files, in one REPEATABLE READ
 *   transaction, nothing else.
 * - restore: `restoreBackup` of that file into an empty migrated database; limit: what pg_restore
 *   does with the limit's files, in one transaction: drop the same secondary indexes, COPY FROM
 *   each table, build the indexes again (the vector index with the same memory).
 * - embedded (information): the same backup restored into, and read back from, an in-memory
 *   embedded store; limit for its backup: reading the same columns as text in one statement a table.
 * Rates are rows a second (all tables); ratio = figure / limit (aim: at least 0.5).
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createDatabase, readBackupTables, readSecondaryIndexes, restoreBackup, writeBackup, VECTOR_INDEX, type BackupTable } from '@kb/db';
import { createTestDatabase, fillEveryTable } from '@kb/db/testing';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 2000);
const DIMENSION = 1024;
const dir = mkdtempSync(join(tmpdir(), 'kb-backup-bench-'));
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

const source = await createTestDatabase('postgres');
const targets = [await createTestDatabase('postgres'), await createTestDatabase('postgres')];
try {
  // Every table holds rows; chunks hold most of them, as in a real store.
  await fillEveryTable(source.database, { documents: 5, dimension: DIMENSION });
  const db = source.database.db as unknown as Kysely<unknown>;
  const documents = Math.ceil(CHUNKS / 10);
  await sql`insert into documents (namespace, slug, title, metadata, content_hash, chunk_count, content)
    select 'docs', 'bench/' || g, 'Bench page ' || g, '{"source":"bench"}'::jsonb, md5(g::text), 10, repeat('Installing and configuring the service. ', 60)
    from generate_series(1, ${documents}) g`.execute(db);
  await sql`insert into parent_chunks (document_id, ordinal, heading_path, content)
    select id, 0, title, repeat('Parent section text. ', 40) from documents where slug like 'bench/%'`.execute(db);
  await sql`insert into chunks (document_id, parent_id, namespace, ordinal, heading_path, content, token_count, embedding)
    select d.id, p.id, 'docs', o, d.title || ' > Part ' || o, repeat('Chunk text about ports, folders and keys. ', 20), 200,
           (select array_agg(((random() * 2 - 1) / 3)::real) from generate_series(1, ${DIMENSION}) where o >= 0)::vector
    from documents d join parent_chunks p on p.document_id = d.id cross join generate_series(0, 9) o
    where d.slug like 'bench/%'`.execute(db);
  await sql`analyze`.execute(db);
  const tables: BackupTable[] = await readBackupTables(db);
  const counts = await Promise.all(tables.map(async (t) => Number((await sql.raw<{ n: string }>(`select count(*) as n from ${quote(t.name)}`).execute(db)).rows[0]!.n)));
  const rows = counts.reduce((a, b) => a + b, 0);
  console.log(`PostgreSQL store: ${rows.toLocaleString('en')} rows in ${tables.length} tables (${counts[tables.findIndex((t) => t.name === 'chunks')]!.toLocaleString('en')} chunks of ${DIMENSION} dimensions)`);

  // Backup, then its limit.
  const file = join(dir, 'bench.kbb');
  const backup = await timed(() => writeBackup({ kind: 'postgres', databaseUrl: source.url! }, createWriteStream(file)));
  const copyOut = await timed(() =>
    withClient(source.url!, async (client) => {
      await client.query('begin isolation level repeatable read read only');
      for (const table of tables) {
        const columns = table.columns.map(quote).join(', ');
        await pipeline(client.query(copyTo(`copy ${quote(table.name)} (${columns}) to stdout`)), createWriteStream(join(dir, `${table.name}.copy`)));
      }
      await client.query('commit');
    }),
  );
  const copyBytes = tables.reduce((sum, t) => sum + statSync(join(dir, `${t.name}.copy`)).size, 0);

  // Restore, then its limit.
  const restore = await timed(() => restoreBackup(createReadStream(file), { kind: 'postgres', databaseUrl: targets[0]!.url! }));
  const copyIn = await timed(() =>
    withClient(targets[1]!.url!, async (client) => {
      await client.query('begin');
      const target = new Kysely<unknown>({
        dialect: new PostgresDialect({ pool: { connect: async () => Object.assign(client, { release: () => undefined }), end: async () => undefined } }),
      });
      const indexes = await readSecondaryIndexes(target);
      for (const index of indexes) await client.query(`drop index ${quote(index.name)}`);
      await client.query(`truncate ${tables.map((t) => quote(t.name)).join(', ')}`);
      for (const table of tables) {
        const columns = table.columns.map(quote).join(', ');
        await pipeline(createReadStream(join(dir, `${table.name}.copy`)), client.query(copyFrom(`copy ${quote(table.name)} (${columns}) from stdin`)));
      }
      for (const index of indexes) {
        if (index.name === VECTOR_INDEX) await client.query(`set local maintenance_work_mem = '${Math.min(1024, Math.ceil((counts[tables.findIndex((t) => t.name === 'chunks')]! * (DIMENSION * 2 + 700) * 1.1) / 2 ** 20))}MB'`);
        await client.query(index.definition);
      }
      await client.query('analyze');
      await client.query('commit');
    }),
  );

  // The embedded store, for information.
  const embedded = await createDatabase({ kind: 'pglite-memory' }, { embeddingDimension: DIMENSION });
  await embedded.migrate();
  const embeddedRestore = await timed(() => restoreBackup(createReadStream(file), { kind: 'embedded', database: embedded }));
  const embeddedBackup = await timed(() => writeBackup({ kind: 'embedded', database: embedded }, createWriteStream(join(dir, 'embedded.kbb'))));
  const embeddedRead = await timed(async () => {
    for (const table of tables) await sql.raw(`select ${table.columns.map((c) => `${quote(c)}::text`).join(', ')} from ${quote(table.name)}`).execute(embedded.db);
  });
  await embedded.close();

  const rate = (ms: number) => rows / (ms / 1000);
  const line = (name: string, figure: number, limit?: number) =>
    console.log(
      `${name.padEnd(34)} ${Math.round(figure).toLocaleString('en').padStart(9)} rows/s` +
        (limit === undefined ? '' : `   limit ${Math.round(limit).toLocaleString('en').padStart(9)} rows/s   ratio ${(figure / limit).toFixed(2)}x`),
    );
  console.log(`backup file ${(statSync(file).size / 2 ** 20).toFixed(1)} MB; COPY text ${(copyBytes / 2 ** 20).toFixed(1)} MB`);
  line('backup (PostgreSQL -> file)', rate(backup.ms), rate(copyOut.ms));
  line('restore (file -> PostgreSQL)', rate(restore.ms), rate(copyIn.ms));
  line('embedded restore (file -> PGlite)', rate(embeddedRestore.ms));
  line('embedded backup (PGlite -> file)', rate(embeddedBackup.ms), rate(embeddedRead.ms));
  console.log(`times: backup ${backup.ms.toFixed(0)} ms, COPY TO ${copyOut.ms.toFixed(0)} ms, restore ${restore.ms.toFixed(0)} ms, COPY FROM + indexes ${copyIn.ms.toFixed(0)} ms, embedded restore ${embeddedRestore.ms.toFixed(0)} ms, embedded backup ${embeddedBackup.ms.toFixed(0)} ms, embedded read ${embeddedRead.ms.toFixed(0)} ms`);
} finally {
  await source.drop();
  for (const target of targets) await target.drop();
  rmSync(dir, { recursive: true, force: true });
}
