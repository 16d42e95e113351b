import { chunkMarkdown } from '@kb/content';
import { createLogger } from '@kb/core';
import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Embedder, EmbeddingInputType } from '../src/embeddings/types.ts';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { documentLockKey } from '../src/ingestion/content-hash.ts';
import { IngestionService, type IngestResult } from '../src/ingestion/ingestion.service.ts';
import { SearchService } from '../src/search/search.service.ts';

const kinds = await testStoreKinds();
const logger = createLogger({ level: 'silent' });

/** The local embedder, with a switch to fail and a record of calls. */
class ObservedEmbedder implements Embedder {
  readonly inner = new LocalEmbedder();
  readonly model = this.inner.model;
  readonly dimension = this.inner.dimension;
  calls: Array<{ count: number; inputType: EmbeddingInputType }> = [];
  failing = false;
  async embed(texts: readonly string[], inputType: EmbeddingInputType) {
    this.calls.push({ count: texts.length, inputType });
    if (this.failing) throw new Error('embedding service down');
    return this.inner.embed(texts, inputType);
  }
}

const GUIDE = `---
product: widgets
---
# Install

Download the installer and run it. The installer asks for a licence key.

## Linux

Use the tarball. Extract it to /opt/widgets and add the bin folder to PATH.

\`\`\`sh
tar -xzf widgets.tgz -C /opt
\`\`\`

## Windows

Run setup.exe as an administrator.
`;

describe.each(kinds)('ingestion pipeline on %s', (kind) => {
  let testDb: TestDatabase | undefined;
  afterEach(async () => {
    await testDb?.drop();
    testDb = undefined;
  });

  async function setup() {
    testDb = await createTestDatabase(kind);
    const embedder = new ObservedEmbedder();
    const ingestion = new IngestionService(testDb.database, embedder, logger);
    const search = new SearchService(testDb.database, embedder, logger);
    const count = async (table: 'chunks' | 'documents' | 'parent_chunks') =>
      Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(testDb!.database.db)).rows[0]!.n);
    return { db: testDb.database.db, embedder, ingestion, search, count };
  }

  it('stores a document with heading paths, front matter metadata and one embedding call', async () => {
    const { db, embedder, ingestion, count } = await setup();
    const result = await ingestion.ingest({ namespace: 'user_docs', title: 'Widgets guide', content: GUIDE, metadata: { team: 'docs' } });
    expect(result.skipped).toBe(false);
    expect(result.chunks).toBeGreaterThan(0);
    expect(embedder.calls).toEqual([{ count: result.chunks, inputType: 'document' }]);
    expect(await count('chunks')).toBe(result.chunks);
    const doc = await db.selectFrom('documents').selectAll().executeTakeFirstOrThrow();
    expect(doc).toMatchObject({ namespace: 'user_docs', slug: 'Widgets guide', title: 'Widgets guide' });
    expect(doc.metadata).toEqual({ product: 'widgets', team: 'docs' });
    const paths = (await db.selectFrom('chunks').select('heading_path').orderBy('ordinal').execute()).map((r) => r.heading_path);
    expect(paths).toContain('Widgets guide > Install > Linux');
    expect(paths.every((p) => p.startsWith('Widgets guide'))).toBe(true);
  });

  it('is idempotent: unchanged content is skipped without embedding', async () => {
    const { embedder, ingestion, count } = await setup();
    const first = await ingestion.ingest({ namespace: 'user_docs', title: 'Guide', content: GUIDE });
    const chunks = await count('chunks');
    embedder.calls = [];
    const second = await ingestion.ingest({ namespace: 'user_docs', title: 'Guide', content: GUIDE });
    expect(second).toEqual({ documentId: first.documentId, skipped: true, chunks: 0 });
    expect(embedder.calls).toEqual([]);
    expect(await count('chunks')).toBe(chunks);
    // A change in content, title or metadata is a new version of the same document.
    const third = await ingestion.ingest({ namespace: 'user_docs', title: 'Guide', content: `${GUIDE}\n## macOS\n\nDrag to Applications.\n` });
    expect(third.documentId).toBe(first.documentId);
    expect(third.skipped).toBe(false);
    const fourth = await ingestion.ingest({ namespace: 'user_docs', title: 'Guide', content: `${GUIDE}\n## macOS\n\nDrag to Applications.\n`, metadata: { v: 2 } });
    expect(fourth.skipped).toBe(false);
    expect(await count('documents')).toBe(1);
  });

  it('keeps the previous version whole when embedding fails', async () => {
    const { db, embedder, ingestion, search, count } = await setup();
    await ingestion.ingest({ namespace: 'tech_docs', title: 'Guide', content: GUIDE });
    const before = await db.selectFrom('chunks').select(['id', 'content']).orderBy('id').execute();
    const hashBefore = (await db.selectFrom('documents').select('content_hash').executeTakeFirstOrThrow()).content_hash;
    embedder.failing = true;
    await expect(ingestion.ingest({ namespace: 'tech_docs', title: 'Guide', content: '# Replaced\n\nAll new text.' })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(await db.selectFrom('chunks').select(['id', 'content']).orderBy('id').execute()).toEqual(before);
    expect((await db.selectFrom('documents').select('content_hash').executeTakeFirstOrThrow()).content_hash).toBe(hashBefore);
    embedder.failing = false;
    const hits = await search.search({ query: 'tarball extract opt', topK: 3 });
    expect(hits[0]?.headingPath).toBe('Guide > Install > Linux');
    expect(await count('documents')).toBe(1);
  });

  it('stores text with NUL characters or unpaired surrogates (from files, third-party documents) with U+FFFD in their place', async () => {
    const { db, ingestion, count } = await setup();
    const odd = {
      namespace: 'user_docs' as const,
      title: 'Odd\u0000title',
      slug: 'odd\ud800slug',
      content: '---\nkind: a\u0000b\n---\n# Heading\udc00\n\nBody with a NUL\u0000 and a lone \ud83d surrogate, and a pair \ud83d\ude00.\n',
      metadata: { 'k\u0000': ['v\ud800', 1] },
    };
    const first = await ingestion.ingest(odd);
    expect(first).toMatchObject({ skipped: false, chunks: 1 });
    const doc = await db.selectFrom('documents').selectAll().executeTakeFirstOrThrow();
    expect(doc).toMatchObject({ title: 'Odd\ufffdtitle', slug: 'odd\ufffdslug' });
    expect(doc.metadata).toEqual({ kind: 'a\ufffdb', 'k\ufffd': ['v\ufffd', 1] });
    const chunk = await db.selectFrom('chunks').select(['heading_path', 'content']).executeTakeFirstOrThrow();
    expect(chunk.heading_path).toBe('Odd\ufffdtitle > Heading\ufffd');
    expect(chunk.content).toContain('NUL\ufffd and a lone \ufffd surrogate, and a pair \u{1f600}.');
    // The same input again is recognised as unchanged, alone or in bulk, and derived content too.
    expect((await ingestion.ingest(odd)).skipped).toBe(true);
    const bulk = await ingestion.ingestMany([odd, { namespace: odd.namespace, title: odd.title, slug: 'derived\u0000', sourceHash: 'h1', content: () => 'Derived\u0000 text.' }]);
    expect(bulk.map((r) => (r instanceof Error ? r.message : r.skipped))).toEqual([true, false]);
    expect((await db.selectFrom('documents').select('slug').where('slug', 'like', 'derived%').executeTakeFirstOrThrow()).slug).toBe('derived\ufffd');
    expect(await ingestion.countChanged([odd])).toBe(0);
    expect(await count('documents')).toBe(2);
  });

  it('stores front matter whose YAML escapes spell NULs or lone surrogates, and ignores front matter that contains itself', async () => {
    const { db, ingestion, count } = await setup();
    const escaped = await ingestion.ingest({
      namespace: 'user_docs',
      title: 'Escapes',
      content: '---\na: "x\\0y"\n"k\\x00": ["\\ud800", 2]\n---\n# Body\n\nText.\n',
    });
    expect(escaped).toMatchObject({ skipped: false, chunks: 1 });
    const doc = await db.selectFrom('documents').select('metadata').where('title', '=', 'Escapes').executeTakeFirstOrThrow();
    expect(doc.metadata).toEqual({ a: 'x\ufffdy', 'k\ufffd': ['\ufffd', 2] });
    const cyclic = await ingestion.ingest({ namespace: 'user_docs', title: 'Cycle', content: '---\ny: &a [*a]\n---\n# Body\n\nStill stored.\n' });
    expect(cyclic).toMatchObject({ skipped: false, chunks: 1 });
    const stored = await db.selectFrom('documents').select('metadata').where('title', '=', 'Cycle').executeTakeFirstOrThrow();
    expect(stored.metadata).toEqual({});
    expect(await count('documents')).toBe(2);
  });

  it('stores a child that repeats an earlier one of its document once, so repeats cannot crowd out other documents', async () => {
    const { db, ingestion, search } = await setup();
    await ingestion.ingest({ namespace: 'user_docs', title: 'Seed doc', content: '# Auth\n\nUse the API key with Bearer tokens.' });
    for (let i = 0; i < 20; i++) {
      await ingestion.ingest({ namespace: 'user_docs', title: `Filler ${i}`, content: `# Part ${i}\n\nNotes on topic number ${i}: shelves, lamps and chairs ${i}.` });
    }
    const block = 'Restart the worker, then check the queue depth. If it keeps growing, page the on-call engineer.';
    const repeated = await ingestion.ingest({
      namespace: 'tech_docs',
      title: 'dup',
      content: `# Steps\n\n${block}\n\n# Steps\n\n${block}\n\n# Other\n\n${block}\n\n\`\`\`\n${'code line\n'.repeat(50_000)}\`\`\`\n`,
    });
    const children = await db
      .selectFrom('chunks')
      .innerJoin('documents', 'documents.id', 'chunks.document_id')
      .select(['chunks.ordinal', 'chunks.heading_path', 'chunks.content'])
      .where('documents.title', '=', 'dup')
      .orderBy('chunks.ordinal')
      .execute();
    expect(repeated.chunks).toBe(children.length);
    expect(children.map((c) => c.ordinal)).toEqual(children.map((_, i) => i));
    expect(new Set(children.map((c) => `${c.heading_path}|${c.content}`)).size).toBe(children.length);
    // The block under "Steps" once, under "Other" once (another trail), the code in few pieces.
    expect(children.filter((c) => c.content === block).map((c) => c.heading_path)).toEqual(['dup > Steps', 'dup > Other']);
    expect(children.length).toBeLessThanOrEqual(6);
    // Every section is kept as context.
    const parents = await db.selectFrom('parent_chunks').select('heading_path').where('document_id', '=', repeated.documentId).orderBy('ordinal').execute();
    expect(parents.map((p) => p.heading_path)).toEqual(['dup > Steps', 'dup > Steps', 'dup > Other']);
    const hits = await search.search({ query: 'Bearer tokens API key', topK: 5 });
    expect(hits[0]?.documentTitle).toBe('Seed doc');
    const filtered = await search.search({ query: 'auth', topK: 5, namespaces: ['user_docs'] });
    expect(filtered[0]?.documentTitle).toBe('Seed doc');
  });

  it('makes a document with no chunks from empty or front-matter-only content', async () => {
    const { ingestion, count, embedder } = await setup();
    const empty = await ingestion.ingest({ namespace: 'user_docs', title: 'Empty', content: '' });
    const front = await ingestion.ingest({ namespace: 'user_docs', title: 'Front', content: '---\ntitle: x\n---\n' });
    expect(empty).toMatchObject({ skipped: false, chunks: 0 });
    expect(front).toMatchObject({ skipped: false, chunks: 0 });
    expect(await count('documents')).toBe(2);
    expect(await count('chunks')).toBe(0);
    expect(embedder.calls).toEqual([]);
  });

  it('never duplicates a document or its chunks under concurrent ingestion', async () => {
    const { db, ingestion, count } = await setup();
    const versions = Array.from({ length: 8 }, (_, i) => `${GUIDE}\n## Extra ${i % 3}\n\n${'Variant text. '.repeat(1 + (i % 3) * 40)}\n`);
    const results = await Promise.all(versions.map((content) => ingestion.ingest({ namespace: 'user_docs', title: 'Race', content })));
    expect(new Set(results.map((r) => r.documentId)).size).toBe(1);
    expect(await count('documents')).toBe(1);
    // The stored chunks are exactly those of one version, never a mix or a double.
    const possible = new Set(
      versions.map((content) => chunkMarkdown({ title: 'Race', content }).parents.reduce((n, p) => n + p.children.length, 0)),
    );
    expect(possible.size).toBeGreaterThan(1);
    expect(possible.has(await count('chunks'))).toBe(true);
    const ordinals = (await db.selectFrom('chunks').select('ordinal').execute()).map((r) => r.ordinal);
    expect(new Set(ordinals).size).toBe(ordinals.length);
  });

  it('writes every chunk of a document larger than one statement holds, and replaces them all', async () => {
    const { db, ingestion, count } = await setup();
    // Far more chunks than the embedded store takes in one statement (128).
    const large = (word: string) => Array.from({ length: 300 }, (_, i) => `## Part ${i}\n\n${word} ${i} `.repeat(3)).join('\n\n');
    const first = await ingestion.ingest({ namespace: 'user_docs', title: 'Large', content: large('alpha') });
    expect(first.chunks).toBeGreaterThan(256);
    expect(await count('chunks')).toBe(first.chunks);
    const stored = await db.selectFrom('documents').select(['id', 'chunk_count']).executeTakeFirstOrThrow();
    expect(stored).toEqual({ id: first.documentId, chunk_count: first.chunks });
    const second = await ingestion.ingest({ namespace: 'user_docs', title: 'Large', content: large('beta') });
    expect(second).toMatchObject({ documentId: first.documentId, skipped: false, chunks: first.chunks });
    expect(await count('chunks')).toBe(first.chunks);
    const contents = (await db.selectFrom('chunks').select('content').execute()).map((r) => r.content);
    expect(contents.every((c) => c.includes('beta') && !c.includes('alpha'))).toBe(true);
    const parents = await db.selectFrom('parent_chunks').select('document_id').execute();
    expect(parents.length).toBeGreaterThan(0);
    expect(parents.every((p) => p.document_id === first.documentId)).toBe(true);
    // Two ingestions of 300 parts each, with their embeddings: seconds when idle, far more on a busy
    // machine. The timeout only catches a hang; what is proved is that every chunk was written.
  }, 300_000);

  // A second connection holds the lock, which the embedded store's one connection cannot.
  if (kind === 'postgres') it('removes missing documents under their locks: a write of one of them ends first', async () => {
    const { ingestion, count } = await setup();
    await ingestion.ingest({ namespace: 'wiki', title: 'Gone', slug: 'wiki:S:gone', content: '# Gone\n\nText.' });
    const writer = new pg.Client({ connectionString: testDb!.url });
    await writer.connect();
    try {
      await writer.query('begin');
      await writer.query('select pg_advisory_xact_lock($1::bigint)', [documentLockKey('wiki', 'wiki:S:gone')]);
      let removed: number | undefined;
      const removing = ingestion.removeMissing('wiki', 'wiki:S:', new Set()).then((n) => (removed = n));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(removed).toBeUndefined();
      expect(await count('documents')).toBe(1);
      await writer.query('commit');
      await removing;
      expect(removed).toBe(1);
      expect(await count('documents')).toBe(0);
      expect(await count('chunks')).toBe(0);
    } finally {
      await writer.end();
    }
  });

  it('ingests in bulk: unchanged skipped, changed replaced, new added, one failure isolated', async () => {
    const { db, embedder, ingestion, count } = await setup();
    await ingestion.ingest({ namespace: 'user_docs', title: 'Kept', content: '# Kept\n\nSame text.' });
    await ingestion.ingest({ namespace: 'user_docs', title: 'Changed', content: '# Changed\n\nOld text.' });
    embedder.calls = [];
    const results = await ingestion.ingestMany([
      { namespace: 'user_docs', title: 'Kept', content: '# Kept\n\nSame text.' },
      { namespace: 'user_docs', title: 'Changed', content: '# Changed\n\nNew text, longer than before.' },
      { namespace: 'tech_docs', title: 'New', content: GUIDE },
      { namespace: 'wiki', title: 'Empty', content: '' },
    ]);
    expect(results.map((r) => (r instanceof Error ? 'error' : r.skipped))).toEqual([true, false, false, false]);
    expect(embedder.calls.map((c) => c.inputType)).toEqual(['document', 'document']);
    expect(await count('documents')).toBe(4);
    const changed = await db.selectFrom('chunks').innerJoin('documents', 'documents.id', 'chunks.document_id').select('chunks.content').where('documents.title', '=', 'Changed').execute();
    expect(changed.map((c) => c.content)).toEqual(['New text, longer than before.']);
    // Re-running the same batch changes nothing.
    const again = await ingestion.ingestMany([
      { namespace: 'user_docs', title: 'Changed', content: '# Changed\n\nNew text, longer than before.' },
      { namespace: 'tech_docs', title: 'New', content: GUIDE },
    ]);
    expect(again.every((r) => !(r instanceof Error) && r.skipped)).toBe(true);

    const chunksBefore = await count('chunks');
    let calls = 0;
    const flaky: Embedder = {
      model: embedder.model,
      dimension: embedder.dimension,
      embed: (texts, type) => (++calls === 2 ? Promise.reject(new Error('boom')) : embedder.embed(texts, type)),
    };
    const mixed = await new IngestionService(testDb!.database, flaky, logger).ingestMany([
      { namespace: 'wiki', title: 'A', content: '# A\n\nalpha' },
      { namespace: 'wiki', title: 'B', content: '# B\n\nbeta' },
      { namespace: 'wiki', title: 'C', content: '# C\n\ngamma' },
    ]);
    expect(mixed.map((r) => (r instanceof Error ? 'error' : 'ok'))).toEqual(['ok', 'error', 'ok']);
    expect(await count('chunks')).toBe(chunksBefore + 2);
  });

  it('prepares a large document in the worker pool, exactly as on the thread', async () => {
    const { db } = await setup();
    const sentence = (i: number, j: number) => `Shelf ${i}-${j} holds lamps of kind ${i * 7 + j}; chairs and tables stand beside it.`;
    const sections = Array.from({ length: 70 }, (_, i) => `## Part ${i}\n\n${Array.from({ length: 14 }, (_, j) => sentence(i, j)).join(' ')}\n`);
    const content = `# Large\n\n${sections.join('\n')}`;
    expect(content.length).toBeGreaterThan(64 * 1024);
    const local = new LocalEmbedder();
    const wrapped: Embedder = { model: local.model, dimension: local.dimension, embed: (t, type) => local.embed(t, type) };
    const embedHere = vi.spyOn(local, 'embed');
    // The built-in embedder: split and embedded in the worker, nothing embedded here.
    const offThread = await new IngestionService(testDb!.database, local, logger).ingest({ namespace: 'wiki', title: 'Large', content });
    expect(embedHere).not.toHaveBeenCalled();
    // Another embedder: split in the worker, embedded here; a small document: all here.
    const remote = await new IngestionService(testDb!.database, wrapped, logger).ingest({ namespace: 'user_docs', title: 'Large', content });
    expect(offThread.chunks).toBe(remote.chunks);
    expect(offThread.chunks).toBeGreaterThanOrEqual(70);
    const stored = (namespace: string) =>
      sql<{ ordinal: number; heading_path: string; content: string; embedding: string }>`
        select c.ordinal, c.heading_path, c.content, c.embedding::text as embedding
        from chunks c join documents d on d.id = c.document_id
        where d.namespace = ${namespace} order by c.ordinal`.execute(db);
    expect((await stored('wiki')).rows).toEqual((await stored('user_docs')).rows);
    const parents = (namespace: string) =>
      sql`select p.ordinal, p.heading_path, p.content from parent_chunks p join documents d on d.id = p.document_id
          where d.namespace = ${namespace} order by p.ordinal`.execute(db);
    expect((await parents('wiki')).rows).toEqual((await parents('user_docs')).rows);
  });

  it('splits and embeds bulk loads for the built-in embedder off the thread, exactly as on it', async () => {
    const { db } = await setup();
    const documents = (namespace: 'wiki' | 'user_docs') => [
      { namespace, title: 'Guide', slug: 'guide', content: GUIDE },
      { namespace, title: 'Empty', slug: 'empty', content: '' },
      { namespace, title: 'Derived', slug: 'derived', sourceHash: 'v1', content: () => '# Derived\n\nConverted text about widgets.' },
      { namespace, title: 'Broken', slug: 'broken', sourceHash: 'v1', content: (): string => { throw new Error('conversion failed'); } },
    ];
    const local = new LocalEmbedder();
    // A LocalEmbedder is prepared in the worker pool; the same embedder wrapped is prepared here.
    const wrapped: Embedder = { model: local.model, dimension: local.dimension, embed: (t, type) => local.embed(t, type) };
    const embedHere = vi.spyOn(local, 'embed');
    const offThread = await new IngestionService(testDb!.database, local, logger).ingestMany(documents('wiki'));
    expect(embedHere).not.toHaveBeenCalled();
    const onThread = await new IngestionService(testDb!.database, wrapped, logger).ingestMany(documents('user_docs'));
    const outcome = (r: IngestResult | Error) => (r instanceof Error ? r.message : r.chunks);
    expect(offThread.map(outcome)).toEqual(onThread.map(outcome));
    expect(offThread.map(outcome)).toEqual([expect.any(Number), 0, 1, 'conversion failed']);
    const stored = (namespace: string) =>
      sql<{ slug: string; heading_path: string; content: string; token_count: number; embedding: string }>`
        select d.slug, c.heading_path, c.content, c.token_count, c.embedding::text as embedding
        from chunks c join documents d on d.id = c.document_id
        where d.namespace = ${namespace} order by d.slug, c.ordinal`.execute(db);
    const [a, b] = [await stored('wiki'), await stored('user_docs')];
    expect(a.rows.length).toBeGreaterThan(2);
    expect(a.rows).toEqual(b.rows);
    const parents = (namespace: string) =>
      sql`select p.heading_path, p.content from parent_chunks p join documents d on d.id = p.document_id where d.namespace = ${namespace} order by d.slug, p.ordinal`.execute(db);
    expect((await parents('wiki')).rows).toEqual((await parents('user_docs')).rows);
  });

  it('prepares concurrent batches one at a time with an in-process embedder, and overlaps a remote one', async () => {
    const { embedder } = await setup();
    const order = async (inProcess: boolean) => {
      const seen: string[] = [];
      // For the remote model, no call returns until both batches have made one: batches that
      // overlap always get there; batches prepared one at a time never do, and the deadline fails the test.
      let bothEntered!: () => void;
      let timer: NodeJS.Timeout | undefined;
      const latch = Promise.race([
        new Promise<void>((resolve) => (bothEntered = resolve)),
        new Promise<never>((_, reject) => {
          if (inProcess) return;
          timer = setTimeout(() => reject(new Error(`only one batch's embedding calls entered: ${seen.join(',')}`)), 30_000);
        }),
      ]);
      latch.catch(() => undefined);
      const observed: Embedder = {
        model: embedder.model,
        dimension: embedder.dimension,
        inProcess,
        async embed(texts, type) {
          seen.push(texts[0]!.split('\n')[0]!);
          if (inProcess) {
            // A chance for the other batch to cut in, were it not kept out.
            await new Promise((resolve) => setTimeout(resolve, 5));
          } else {
            if (seen.some((t) => t.startsWith('A')) && seen.some((t) => t.startsWith('B'))) bothEntered();
            await latch;
          }
          return embedder.embed(texts, type);
        },
      };
      const ingestion = new IngestionService(testDb!.database, observed, logger);
      const batch = (name: string) =>
        ['1', '2', '3'].map((n) => ({ namespace: 'wiki' as const, title: `${name}${n}${inProcess}`, content: `${name} text ${n}` }));
      await Promise.all([ingestion.ingestMany(batch('A')), ingestion.ingestMany(batch('B'))]);
      if (!inProcess) await latch;
      clearTimeout(timer);
      return seen.map((title) => title[0]).join('');
    };
    // Either batch may finish its hash check first; then it is prepared whole.
    expect(await order(true)).toMatch(/^(AAABBB|BBBAAA)$/);
    expect(await order(false)).not.toMatch(/^(AAABBB|BBBAAA)$/);
  });

  it('searches semantically with ranked scores in 0..1, filters by namespace, and fills topK when filtered', async () => {
    const { ingestion, search } = await setup();
    await ingestion.ingest({ namespace: 'user_docs', title: 'Guide', content: GUIDE });
    for (let i = 0; i < 30; i++) {
      await ingestion.ingest({ namespace: 'tech_docs', title: `Note ${i}`, content: `# Note ${i}\n\nInternal note number ${i} about widgets installation servers.` });
    }
    const all = await search.search({ query: 'install widgets on linux', topK: 5 });
    expect(all).toHaveLength(5);
    for (let i = 1; i < all.length; i++) expect(all[i - 1]!.score).toBeGreaterThanOrEqual(all[i]!.score);
    for (const hit of all) {
      expect(hit.score).toBeGreaterThanOrEqual(0);
      expect(hit.score).toBeLessThanOrEqual(1);
      expect(hit).toMatchObject({ chunkId: expect.any(String), documentId: expect.any(String), documentTitle: expect.any(String) });
    }
    const filtered = await search.search({ query: 'internal note servers', namespaces: ['user_docs'], topK: 3 });
    expect(filtered).toHaveLength(3);
    expect(filtered.every((h) => h.namespace === 'user_docs')).toBe(true);
    const tech = await search.search({ query: 'install widgets', namespaces: ['tech_docs'], topK: 20 });
    expect(tech).toHaveLength(20);

    const hybrid = await search.search({ query: 'tarball', topK: 3, mode: 'hybrid' });
    expect(hybrid[0]?.headingPath).toBe('Guide > Install > Linux');
    expect(hybrid[0]!.score).toBeLessThanOrEqual(1);
  });
});
