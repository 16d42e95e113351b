import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, dropVectorIndex, indexedDimension, shortlistSize, StoreLockedError } from './index.ts';
import { createEmptyPostgresDatabase, createTestDatabase, seedEmbeddedStore, testStoreKinds } from './testing.ts';
import { buildMemoryMb, createVectorIndex, ensureVectorIndex, vectorDistance } from './vector-index.ts';

const kinds = await testStoreKinds();

/** Every migration, in the order a new store runs them. */
const MIGRATIONS = [
  '20261121T0000_initial',
  '20261121T0100_chunk_parent_index',
  '20261122T0000_half_precision_vector_index',
  '20261123T0000_conversation_turns',
  '20261124T0000_faq_sources',
  '20261125T0000_document_records',
  '20261125T0100_query_log',
  '20261127T0900_key_kinds_and_feedback',
  '20261127T1000_long_text_keys',
  '20261127T1100_query_log_answers',
  '20261127T1200_corpus_statistics',
  '20261127T1300_job_retries',
  '20261127T1400_document_urls',
  '20261127T1500_namespace_statistics',
  '20261202T0100_sources',
  '20261202T0200_chunk_pages',
  '20261202T0430_write_documents',
  '20261202T1108_chunk_lexical_terms',
  '20261202T1230_chunk_fragments',
];

describe.each(kinds)('schema on %s', (kind) => {
  it('creates every table, the vector index and the full-text index', async () => {
    const { database, drop } = await createTestDatabase(kind);
    try {
      const tables = await sql<{ table_name: string }>`
        select table_name from information_schema.tables where table_schema = 'public' order by table_name`.execute(database.db);
      expect(tables.rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining([
          'admin_sessions', 'api_keys', 'chunks', 'conversations', 'documents', 'faq_cache', 'faq_generations',
          'ingestion_jobs', 'messages', 'namespaces', 'parent_chunks', 'store_meta', 'sources', 'source_pages',
        ]),
      );
      const indexes = await sql<{ indexdef: string }>`
        select indexdef from pg_indexes where tablename = 'chunks'`.execute(database.db);
      const defs = indexes.rows.map((r) => r.indexdef).join('\n');
      // PostgreSQL indexes half-precision copies; PGlite (software half floats) full precision.
      expect(defs).toMatch(
        kind === 'postgres'
          ? /USING hnsw \(\(\(embedding\)::halfvec\(1024\)\) halfvec_cosine_ops\)/
          : /USING hnsw \(embedding vector_cosine_ops\)/,
      );
      expect(defs).toMatch(/USING gin \(search_tsv\)/);
    } finally {
      await drop();
    }
  });

  it('stores vectors and orders by cosine distance', async () => {
    const { database, drop } = await createTestDatabase(kind);
    try {
      const db = database.db;
      await db.insertInto('namespaces').values({ id: 'user_docs' }).execute();
      const doc = await db
        .insertInto('documents')
        .values({ namespace: 'user_docs', slug: 's', title: 'T', metadata: JSON.stringify({}), content_hash: 'h' })
        .returning('id')
        .executeTakeFirstOrThrow();
      const vec = (first: number) => `[${[first, ...new Array(1023).fill(0)].join(',')}]`;
      await db
        .insertInto('chunks')
        .values([
          { document_id: doc.id, namespace: 'user_docs', ordinal: 0, heading_path: 'T', content: 'alpha', token_count: 1, embedding: vec(1) },
          { document_id: doc.id, namespace: 'user_docs', ordinal: 1, heading_path: 'T', content: 'beta', token_count: 1, embedding: vec(-1) },
        ])
        .execute();
      const rows = await sql<{ content: string; distance: number }>`
        select content, embedding <=> ${vec(1)}::vector as distance from chunks order by embedding <=> ${vec(1)}::vector limit 2`.execute(db);
      expect(rows.rows.map((r) => r.content)).toEqual(['alpha', 'beta']);
      expect(Number(rows.rows[0]!.distance)).toBeCloseTo(0);
      const tsv = await sql<{ n: number }>`select count(*)::int as n from chunks where search_tsv @@ plainto_tsquery('english', 'alphas')`.execute(db);
      expect(tsv.rows[0]!.n).toBe(1);
    } finally {
      await drop();
    }
  });
});

describe.each(kinds)('vector searches on %s', (kind) => {
  it('run with sequential scans off, planned on the HNSW index even in a small table', async () => {
    const { database, drop } = await createTestDatabase(kind);
    try {
      const setting = async (db: typeof database.db) =>
        (await sql<{ enable_seqscan: string; ef: string }>`select current_setting('enable_seqscan') as enable_seqscan, current_setting('hnsw.ef_search') as ef`.execute(db)).rows[0];
      expect(await setting(database.db)).toEqual({ enable_seqscan: 'on', ef: '100' });
      expect(await database.withVectorSearch(setting)).toEqual({ enable_seqscan: 'off', ef: '100' });
      // Other queries keep the planner's default.
      expect(await setting(database.db)).toEqual({ enable_seqscan: 'on', ef: '100' });
      const query = database.vectorParameter([1, ...new Array(1023).fill(0)]);
      const order = database.vectorDistance(1024, sql.ref('embedding'), query);
      const plan = await database.withVectorSearch((db) => sql<{ 'QUERY PLAN': string }>`explain select id from chunks order by ${order} limit 5`.execute(db));
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/chunks_embedding_idx/);
    } finally {
      await drop();
    }
  });
});

describe('vector index shape', () => {
  it('indexes whole vectors up to 2,000 components and the first 1,024 of wider ones', () => {
    expect(indexedDimension(256)).toBe(256);
    expect(indexedDimension(1024)).toBe(1024);
    expect(indexedDimension(2000)).toBe(2000);
    expect(indexedDimension(2048)).toBe(1024);
    expect(shortlistSize(1024, 5)).toBeNull();
    expect(shortlistSize(2048, 5)).toBe(40);
    expect(shortlistSize(2048, 100)).toBe(200);
  });

  it('indexes the first 1,024 components of a 2,048-component store on PGlite', async () => {
    const database = await createDatabase({ kind: 'pglite-memory' }, { embeddingDimension: 2048 });
    try {
      await database.migrate();
      const defs = await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = 'chunks_embedding_idx'`.execute(database.db);
      expect(defs.rows[0]!.indexdef).toMatch(/\(\(subvector\(embedding, 1, 1024\)\)::vector\(1024\)\) vector_cosine_ops/);
      // Without its recorded definition, the index is still recognised as this version's.
      await sql`comment on index chunks_embedding_idx is null`.execute(database.db);
      expect(await ensureVectorIndex(database.db, 'pglite')).toBe('present');
    } finally {
      await database.close();
    }
  });

  it('refuses to index more dimensions than pgvector can', () => {
    expect(() => vectorDistance('postgres', 4001, sql.ref('embedding'), '[0]')).toThrow(RangeError);
  });
});

describe.each(kinds)('vector index upgrades on %s', (kind) => {
  it('rebuilds an index built on another expression at the next start, once', async () => {
    const { database, drop } = await createTestDatabase(kind);
    try {
      // An index as an earlier version built it: on another expression, no recorded definition.
      await dropVectorIndex(database.db);
      await sql`create index chunks_embedding_idx on chunks using hnsw ((subvector(embedding, 1, 512)::vector(512)) vector_cosine_ops)`.execute(database.db);
      expect(await ensureVectorIndex(database.db, kind)).toBe('rebuilt');
      const defs = await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = 'chunks_embedding_idx'`.execute(database.db);
      expect(defs.rows[0]!.indexdef).not.toMatch(/subvector/);
      expect(defs.rows[0]!.indexdef).toMatch(kind === 'postgres' ? /halfvec\(1024\)/ : /embedding vector_cosine_ops/);
      expect(await ensureVectorIndex(database.db, kind)).toBe('present');
      await dropVectorIndex(database.db);
      expect(await ensureVectorIndex(database.db, kind)).toBe('created');
      // Built as this version builds it, before definitions were recorded: kept, and marked.
      await sql`comment on index chunks_embedding_idx is null`.execute(database.db);
      const oid = async () => (await sql<{ oid: number }>`select 'chunks_embedding_idx'::regclass::oid as oid`.execute(database.db)).rows[0]!.oid;
      const before = await oid();
      expect(await ensureVectorIndex(database.db, kind)).toBe('present');
      expect(await oid()).toBe(before);
    } finally {
      await drop();
    }
  });
});

describe.each(kinds)('vector index builds on %s', (kind) => {
  it('get the memory to hold the whole graph for the build only, and never less than configured', async () => {
    const { database, drop } = await createTestDatabase(kind);
    try {
      await database.transaction(async (trx) => {
        expect(await buildMemoryMb(trx, kind, 1024)).toBeUndefined(); // an empty table: 64 MB is plenty
        await sql`set local maintenance_work_mem = '1MB'`.execute(trx);
        await trx.insertInto('namespaces').values({ id: 'user_docs' }).execute();
        const doc = await trx
          .insertInto('documents')
          .values({ namespace: 'user_docs', slug: 's', title: 'T', metadata: JSON.stringify({}), content_hash: 'h' })
          .returning('id')
          .executeTakeFirstOrThrow();
        await sql`
          insert into chunks (document_id, namespace, ordinal, heading_path, content, token_count, embedding)
          select ${doc.id}::uuid, 'user_docs', g, 'T', 'c', 1, array_fill(0.5::real, array[1024])::vector
          from generate_series(1, 600) as g`.execute(trx);
        // 600 elements of 1,024 components (half precision on PostgreSQL) and their neighbour lists.
        expect(await buildMemoryMb(trx, kind, 1024)).toBe(kind === 'postgres' ? 2 : 4);
        await dropVectorIndex(trx);
        await createVectorIndex(trx, kind);
        const setting = await sql<{ m: string }>`select current_setting('maintenance_work_mem') as m`.execute(trx);
        expect(setting.rows[0]!.m).toBe(kind === 'postgres' ? '2MB' : '4MB');
      });
      const after = await sql<{ m: string }>`select current_setting('maintenance_work_mem') as m`.execute(database.db);
      expect(after.rows[0]!.m).toBe('64MB');
    } finally {
      await drop();
    }
  });
});

describe('the embedded store on disk', () => {
  it('runs with the page cache it is given, PGlite\'s default otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kb-db-'));
    // A store made once per machine: a new store's initdb is not what this test is about.
    await seedEmbeddedStore(dir);
    const sharedBuffers = async (database: Awaited<ReturnType<typeof createDatabase>>) =>
      (await sql<{ s: string }>`select current_setting('shared_buffers') as s`.execute(database.db)).rows[0]!.s;
    try {
      const small = await createDatabase({ kind: 'pglite', dataDir: dir, cacheMb: 16 });
      expect(await sharedBuffers(small)).toBe('16MB');
      await small.close();
      const standard = await createDatabase({ kind: 'pglite', dataDir: dir });
      expect(await sharedBuffers(standard)).toBe('128MB');
      await standard.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('migrations', () => {
  it('run once and are recorded (PGlite on disk)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kb-db-'));
    try {
      const first = await createDatabase({ kind: 'pglite', dataDir: dir });
      expect(await first.migrate()).toEqual(MIGRATIONS);
      await first.close();
      const second = await createDatabase({ kind: 'pglite', dataDir: dir });
      expect(await second.migrate()).toEqual([]);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(kinds.includes('postgres'))('run once and are recorded (PostgreSQL)', async () => {
    const empty = await createEmptyPostgresDatabase();
    try {
      const first = await createDatabase({ kind: 'postgres', databaseUrl: empty.url });
      expect(await first.migrate()).toEqual(MIGRATIONS);
      expect(await first.migrate()).toEqual([]);
      await first.close();
    } finally {
      await empty.drop();
    }
  });
});

describe('embedded store lock', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('refuses a second opener while the first holds the store, in this process and another', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kb-lock-'));
    dirs.push(dir);
    await seedEmbeddedStore(dir);
    const owner = await createDatabase({ kind: 'pglite', dataDir: dir });
    try {
      await expect(createDatabase({ kind: 'pglite', dataDir: dir })).rejects.toBeInstanceOf(StoreLockedError);
      const child = spawnSync(
        process.execPath,
        ['--import', 'tsx', '-e', `import('${join(import.meta.dirname, 'index.ts')}').then(m => m.createDatabase({ kind: 'pglite', dataDir: ${JSON.stringify(dir)} })).then(() => process.exit(0), e => { console.error(e.name); process.exit(3); })`],
        { encoding: 'utf8' },
      );
      expect(child.status).toBe(3);
      expect(child.stderr).toContain('StoreLockedError');
    } finally {
      await owner.close();
    }
    const again = await createDatabase({ kind: 'pglite', dataDir: dir });
    await again.close();
  });

  it('takes over a lock left by a dead process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kb-lock-'));
    dirs.push(dir);
    await seedEmbeddedStore(dir);
    const child = spawnSync(process.execPath, ['-e', 'process.exit(0)']);
    const deadPid = child.pid!;
    const { writeFileSync } = await import('node:fs');
    const { hostname } = await import('node:os');
    writeFileSync(join(dir, 'kb.lock'), JSON.stringify({ pid: deadPid, hostname: hostname(), startedAt: 'x', command: 'gone' }));
    const database = await createDatabase({ kind: 'pglite', dataDir: dir });
    await database.close();
  });
});
