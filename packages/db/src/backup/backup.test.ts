import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, fillEveryTable, testStoreKinds, type TestDatabase, type TestStoreKind } from '../testing.ts';
import {
  BackupFileError,
  readBackupEvents,
  restoreBackup,
  RestoreRefusedError,
  writeBackup,
  type BackupStore,
} from './index.ts';
import { DERIVED_TABLES } from './catalog.ts';
import { decodeCopyRow, encodeCopyRow } from './copy-text.ts';

const kinds = await testStoreKinds();
const opened: TestDatabase[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.drop()));
});

async function store(kind: TestStoreKind): Promise<{ test: TestDatabase; store: BackupStore }> {
  const test = await createTestDatabase(kind);
  opened.push(test);
  return { test, store: kind === 'postgres' ? { kind: 'postgres', databaseUrl: test.url! } : { kind: 'embedded', database: test.database } };
}

/** A backup as bytes. */
async function backupBytes(source: BackupStore): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new (await import('node:stream')).Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  await writeBackup(source, sink);
  return Buffer.concat(chunks);
}

async function tableNames(test: TestDatabase): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_migration%'
    order by table_name`.execute(test.database.db);
  return rows.map((r) => r.name).filter((name) => !DERIVED_TABLES.has(name));
}

describe('COPY text rows', () => {
  it('round-trips every character COPY escapes, NULLs and empty strings', () => {
    const values = ['a\tb', 'line\nbreak\r', 'back\\slash', '\b\f\v', '', null, '\\N', 'ünïcødé 🙂', '\u0001raw'];
    const line = encodeCopyRow(values);
    expect(line).not.toMatch(/[\n\r]/);
    expect(line.split('\t')).toHaveLength(values.length);
    expect(decodeCopyRow(line)).toEqual(values);
  });
});

describe.each(kinds.flatMap((from) => kinds.map((to) => [from, to] as const)))('backup of %s restored into %s', (from, to) => {
  it('restores every table exactly: rows, checksums, keys, vectors, timestamps', async () => {
    const source = await store(from);
    await fillEveryTable(source.test.database);
    // Every table of the schema holds rows, so a table missing from the backup shows.
    const names = await tableNames(source.test);
    const counts = await Promise.all(names.map(async (name) => [name, Number((await sql.raw<{ n: number }>(`select count(*)::int as n from "${name}"`).execute(source.test.database.db)).rows[0]!.n)] as const));
    expect(counts.filter(([, n]) => n === 0).map(([name]) => name)).toEqual([]);

    const bytes = await backupBytes(source.store);
    expect(bytes[0]).toBe(0x1f);
    const target = await store(to);
    const restored = await restoreBackup(Readable.from([bytes]), target.store);
    expect(restored.header.tables.map((t) => t.name).sort()).toEqual(names);
    expect(restored.tables.map((t) => t.name).sort()).toEqual(names);

    const before = await writeBackup(source.store, null);
    const after = await writeBackup(target.store, null);
    expect(after.tables).toEqual(before.tables);
    for (const [name, n] of counts) expect(after.tables.find((t) => t.name === name)?.rows).toBe(n);

    // The statistics kept by triggers are rebuilt by the restored chunks, equal to the source's.
    const stats = async (db: TestDatabase['database']['db']) =>
      (await sql<{ s: string }>`select (select row_to_json(c)::text from corpus_stats c) || (select coalesce(string_agg(term || ':' || chunks, ',' order by term), '') from term_stats where chunks > 0) as s`.execute(db)).rows[0]!.s;
    expect(await stats(target.test.database.db)).toBe(await stats(source.test.database.db));

    const key = await sql<{ request_count: string; key_hash: string }>`select request_count::text, key_hash from api_keys where is_admin`.execute(target.test.database.db);
    expect(key.rows[0]).toEqual({ request_count: '9007199254740993', key_hash: 'h'.repeat(64) });
    const ns = await sql<{ t: string }>`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') as t from namespaces where id = 'docs'`.execute(target.test.database.db);
    expect(ns.rows[0]!.t).toBe('2026-01-02 03:04:05.123456');
    // The generated full-text column and the vector index are there and used.
    const hit = await sql<{ n: number }>`select count(*)::int as n from chunks where search_tsv @@ to_tsquery('english', 'pnpm')`.execute(target.test.database.db);
    expect(hit.rows[0]!.n).toBe(6);
    const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = 'chunks'`.execute(target.test.database.db);
    expect(indexes.rows.map((r) => r.indexname)).toEqual(
      expect.arrayContaining(['chunks_embedding_idx', 'chunks_search_tsv_idx', 'chunks_document_idx', 'chunks_lexical_terms_missing']),
    );
    // The hybrid ranking's stored terms come back as written, and chunks without them without.
    const terms = async (db: TestDatabase['database']['db']) =>
      (await sql<{ s: string }>`select string_agg(coalesce(lexical_terms::text, '-'), ' ' order by heading_path) as s from chunks`.execute(db)).rows[0]!.s;
    expect(await terms(target.test.database.db)).toBe(await terms(source.test.database.db));
    expect(await terms(target.test.database.db)).toContain('"instal": 1');
  });
});

describe.each(kinds)("restore refusals on %s", (kind) => {
  it('refuses a damaged file, another format version, other embedding settings and a non-empty store, leaving the store as it was', async () => {
    const source = await store(kind);
    await fillEveryTable(source.test.database, { documents: 2 });
    const bytes = await backupBytes(source.store);
    const target = await store(kind);
    const empty = await writeBackup(target.store, null);
    const unchanged = async () => expect((await writeBackup(target.store, null)).tables).toEqual(empty.tables);

    // A flipped byte in the compressed data.
    const flipped = Buffer.from(bytes);
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
    await expect(restoreBackup(Readable.from([flipped]), target.store)).rejects.toThrow(/damaged|ends early/);
    await unchanged();

    // Content changed and compressed again: only the checksums can tell.
    const text = gunzipSync(bytes).toString('utf8').replace('Run pnpm install.', 'Run npm install!!');
    await expect(restoreBackup(Readable.from([gzipSync(text)]), target.store)).rejects.toThrow(/damaged: table messages holds/);
    await unchanged();

    // Cut short.
    await expect(restoreBackup(Readable.from([bytes.subarray(0, Math.floor(bytes.length * 0.8))]), target.store)).rejects.toThrow(/ends early/);
    await unchanged();

    const lines = gunzipSync(bytes).toString('utf8').split('\n');
    const header = JSON.parse(lines[0]!);
    const withHeader = (h: object) => gzipSync([JSON.stringify(h), ...lines.slice(1)].join('\n'));
    const version = restoreBackup(Readable.from([withHeader({ ...header, version: 99 })]), target.store);
    await expect(version).rejects.toThrow(BackupFileError);
    await expect(restoreBackup(Readable.from([withHeader({ ...header, version: 99 })]), target.store)).rejects.toThrow(/format version 99; this version of kb reads format version 1/);
    await expect(restoreBackup(Readable.from([withHeader({ ...header, embedding: { model: 'local-test', dimension: 512 } })]), target.store)).rejects.toThrow(
      /512 dimensions, but this store's embedding column has 1024/,
    );
    await expect(restoreBackup(Readable.from([withHeader({ ...header, migrations: [...header.migrations, '29990101T0000_future'] })]), target.store)).rejects.toThrow(
      /newer version of kb/,
    );
    await expect(restoreBackup(Readable.from([Buffer.from('not a backup\n')]), target.store)).rejects.toThrow(/not readable|not a kb backup/);
    await unchanged();

    await restoreBackup(Readable.from([bytes]), target.store);
    const restored = await writeBackup(target.store, null);
    await expect(restoreBackup(Readable.from([bytes]), target.store)).rejects.toThrow(RestoreRefusedError);
    await expect(restoreBackup(Readable.from([bytes]), target.store)).rejects.toThrow(/The store is not empty/);
    // --replace puts the backup's content in place of the store's.
    await sql`insert into namespaces (id) values ('extra')`.execute(target.test.database.db);
    await restoreBackup(Readable.from([bytes]), target.store, { replace: true });
    expect((await writeBackup(target.store, null)).tables).toEqual(restored.tables);
  });

  it('reads a backup as events, the whole file checked at its end', async () => {
    const source = await store(kind);
    await fillEveryTable(source.test.database, { documents: 1 });
    const bytes = await backupBytes(source.store);
    const kindsSeen: string[] = [];
    for await (const event of readBackupEvents(Readable.from([bytes]))) kindsSeen.push(event.kind);
    expect(kindsSeen[0]).toBe('header');
    expect(kindsSeen.at(-1)).toBe('done');
  });
});
