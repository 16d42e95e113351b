/**
 * Ingestion and search costs, printed per operation.
 *
 *   pnpm bench                      (from the repository root: every benchmark)
 *   npx tsx bench/ingest.bench.ts   [--store=postgres|pglite|pglite-disk] [--corpus=DIR] [--search-chunks=N]
 *
 * - write: pipeline steps 2-4 and 7 (the transaction) for every document of a Markdown corpus,
 *   with the vector index present; chunking and embedding are done beforehand and reported apart;
 * - re-ingest: the same corpus again, unchanged, through IngestionService.ingestMany;
 * - search: semantic search (server side, the query embedding excluded) at --search-chunks chunks,
 *   and hybrid search through the service with page titles as queries.
 * PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) is used to
 * create and drop a scratch database.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chunkMarkdown, embeddingText } from '@kb/content';
import { toVectorLiteral } from '@kb/db';
import { sql } from 'kysely';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { DocumentsRepository, type DocumentVersion } from '../src/ingestion/documents.repository.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { createLogger } from '../src/logger.ts';
import { SearchRepository } from '../src/search/search.repository.ts';
import { SearchService } from '../src/search/search.service.ts';
import { openScratchDatabase } from './scratch-database.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'postgres' },
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/markdown-docs/hugo-docs') },
    'search-chunks': { type: 'string', default: '20000' },
    queries: { type: 'string', default: '200' },
  },
});

const perSecond = (n: number, ms: number) => (n / (ms / 1000)).toFixed(0);
const files = (await readdir(values.corpus, { recursive: true, withFileTypes: true }))
  .filter((e) => e.isFile() && e.name.endsWith('.md'))
  .map((e) => join(e.parentPath, e.name))
  .sort();
const docs = await Promise.all(
  files.map(async (file, i) => ({ title: `doc ${i}`, slug: file, content: await readFile(file, 'utf8') })),
);

const { database, drop } = await openScratchDatabase(values.store);
try {
  await database.migrate();
  const embedder = new LocalEmbedder();
  const logger = createLogger({ level: 'silent' });

  let t = performance.now();
  const prepared = docs.map((d) => ({ doc: d, chunked: chunkMarkdown({ title: d.title, content: d.content }) }));
  const chunkMs = performance.now() - t;
  t = performance.now();
  const versions: DocumentVersion[] = [];
  let chunkCount = 0;
  for (const { doc, chunked } of prepared) {
    const children = chunked.parents.flatMap((p) => p.children.map((c) => ({ ...c, parentOrdinal: p.ordinal })));
    const vectors = await embedder.embed(children.map((c) => embeddingText(c.headingPath, c.content)), 'document');
    chunkCount += children.length;
    versions.push({
      namespace: 'user_docs',
      slug: doc.slug,
      title: doc.title,
      metadata: chunked.metadata,
      contentHash: randomBytes(8).toString('hex'),
      parents: chunked.parents.map((p) => ({ ordinal: p.ordinal, headingPath: p.headingPath, content: p.content })),
      children: children.map((c, i) => ({ ...c, embedding: vectors[i]! })),
    });
  }
  const embedMs = performance.now() - t;
  console.log(`${values.store}: ${docs.length} documents, ${chunkCount} chunks, ${embedder.model}`);
  console.log(`  chunking   ${(chunkMs / docs.length).toFixed(2)} ms/document (${perSecond(docs.length, chunkMs)} documents/s)`);
  console.log(`  embedding  ${(embedMs / chunkCount).toFixed(3)} ms/chunk (local embedder)`);

  const repository = new DocumentsRepository(database);
  const concurrency = values.store.startsWith('pglite') ? 1 : 2;
  t = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < versions.length) await repository.writeVersion(versions[next++]!);
    }),
  );
  const writeMs = performance.now() - t;
  console.log(`  write      ${(writeMs / chunkCount).toFixed(3)} ms/chunk = ${perSecond(chunkCount, writeMs)} chunks/s (one write per document, vector index present, concurrency ${concurrency})`);
  // Its limit: the same chunk rows written server-side in one statement (INSERT ... SELECT) into
  // an empty table of the same shape and indexes, as the request-path benchmark defines it.
  await sql`create table chunks_limit (like chunks including all)`.execute(database.db);
  const columns = (
    await sql<{ column_name: string }>`select column_name from information_schema.columns
      where table_name = 'chunks' and is_generated = 'NEVER' order by ordinal_position`.execute(database.db)
  ).rows.map((r) => sql.ref(r.column_name));
  t = performance.now();
  await sql`insert into chunks_limit (${sql.join(columns)}) select ${sql.join(columns)} from chunks`.execute(database.db);
  const limitMs = performance.now() - t;
  await sql`drop table chunks_limit`.execute(database.db);
  console.log(`  limit      ${perSecond(chunkCount, limitMs)} chunks/s (the same rows, INSERT ... SELECT): the write is ${(limitMs / writeMs).toFixed(2)}x of it`);

  // The same versions again, written in batches of 32 documents per transaction, into an emptied
  // store: rewriting in place would re-insert vectors the index still holds (its dead entries),
  // which costs far less than inserting new ones and would flatter the figure.
  for (const v of versions) v.contentHash = randomBytes(8).toString('hex');
  await sql`truncate documents cascade`.execute(database.db);
  t = performance.now();
  const batches: (typeof versions)[] = [];
  for (let i = 0; i < versions.length; i += 32) batches.push(versions.slice(i, i + 32));
  let nextBatch = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (nextBatch < batches.length) await repository.writeVersions(batches[nextBatch++]!);
    }),
  );
  const batchMs = performance.now() - t;
  console.log(`  batched    ${(batchMs / chunkCount).toFixed(3)} ms/chunk = ${perSecond(chunkCount, batchMs)} chunks/s (32 documents per transaction, into an empty store, vector index present)`);

  // Unchanged re-ingest through the service (the hashes above are random: store real ones first).
  const service = new IngestionService(database, embedder, logger);
  const inputs = docs.map((d) => ({ namespace: 'user_docs' as const, title: d.title, slug: d.slug, content: d.content }));
  for (const input of inputs) {
    await sql`update documents set content_hash = ${service.hashOf(input)} where slug = ${input.slug}`.execute(database.db);
  }
  t = performance.now();
  for (let i = 0; i < inputs.length; i += 64) {
    const results = await service.ingestMany(inputs.slice(i, i + 64));
    if (results.some((r) => r instanceof Error || !r.skipped)) throw new Error('re-ingest was not a no-op');
  }
  const reMs = performance.now() - t;
  console.log(`  re-ingest  ${(reMs / inputs.length).toFixed(3)} ms/document = ${perSecond(inputs.length, reMs)} documents/s (unchanged)`);

  // Search at size: fill with synthetic chunks built from the corpus's own chunk vectors.
  const target = Number(values['search-chunks']);
  const stored = Number((await sql<{ n: string }>`select count(*) as n from chunks`.execute(database.db)).rows[0]!.n);
  if (target > stored) {
    t = performance.now();
    const docId = (await sql<{ id: string }>`select id from documents limit 1`.execute(database.db)).rows[0]!.id;
    const pool = versions.flatMap((v) => v.children);
    await sql`drop index chunks_embedding_idx`.execute(database.db);
    for (let done = stored; done < target; ) {
      const n = Math.min(2000, target - done);
      const rows = Array.from({ length: n }, (_, i) => {
        const a = pool[(done + i) % pool.length]!;
        const b = pool[(done * 7 + i * 13) % pool.length]!;
        const mixed = Array.from(a.embedding, (x, j) => x + 0.5 * b.embedding[j]!);
        return { content: `${a.content.slice(0, 200)} ${b.content.slice(0, 200)}`, embedding: toVectorLiteral(mixed) };
      });
      await sql`
        insert into chunks (document_id, namespace, ordinal, heading_path, content, token_count, embedding)
        select ${docId}::uuid, 'user_docs', 0, 'synthetic', content, 100, embedding::vector
        from unnest(${rows.map((r) => r.content)}::text[], ${rows.map((r) => r.embedding)}::text[]) as t(content, embedding)`.execute(database.db);
      done += n;
    }
    // Built with the memory to hold the whole graph (vector-index.ts).
    await database.ensureVectorIndex();
    await sql`analyze chunks`.execute(database.db);
    console.log(`  (filled to ${target} chunks and rebuilt the index in ${((performance.now() - t) / 1000).toFixed(0)} s)`);
  }
  const search = new SearchRepository(database);
  const queries = docs.slice(0, Number(values.queries)).map((d) => d.content.slice(0, 120));
  const queryVectors = await embedder.embed(queries, 'query');
  for (const v of queryVectors.slice(0, 10)) await search.nearest(v, null, 5); // warm-up
  if (process.env.BENCH_EXPLAIN) {
    const v = queryVectors[0]!;
    const plan = await database.withVectorSearch((db) => sql<{ 'QUERY PLAN': string }>`explain analyze select id from chunks
      order by ${database.vectorDistance(v.length, sql.ref('embedding'), toVectorLiteral(v))} limit 5`.execute(db));
    console.log(plan.rows.map((r) => r['QUERY PLAN'].slice(0, 160)).join('\n'));
  }
  // Interleaved with the same search through a per-search transaction (how the embedded store
  // turns sequential scans off), so both see the same cache state.
  const inTransaction = new SearchRepository({
    reads: {
      ...database,
      withVectorSearch: (query) =>
        database.db.transaction().execute(async (trx) => {
          await sql`select set_config('enable_seqscan', 'off', true)`.execute(trx);
          return query(trx);
        }),
    },
  });
  const latencies: number[] = [];
  const transactional: number[] = [];
  const filtered: number[] = [];
  const timed = async (run: () => Promise<unknown>, into: number[]) => {
    const s = performance.now();
    await run();
    into.push(performance.now() - s);
  };
  for (const [i, v] of queryVectors.entries()) {
    const direct = () => timed(() => search.nearest(v, null, 5), latencies);
    const viaTransaction = () => timed(() => inTransaction.nearest(v, null, 5), transactional);
    // Only the first search of each vector is kept: the second finds its pages cached. Each
    // way goes first for every other query.
    if (i % 2 === 0) {
      await direct();
      await inTransaction.nearest(v, null, 5);
    } else {
      await viaTransaction();
      await search.nearest(v, null, 5);
    }
    const s = performance.now();
    await search.nearest(v, ['tech_docs'], 5);
    filtered.push(performance.now() - s);
  }
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!.toFixed(2);
  console.log(`  search     p50 ${pct(latencies, 0.5)} ms, p95 ${pct(latencies, 0.95)} ms at ${Math.max(target, stored)} chunks (semantic, topK 5, query embedding excluded)`);
  if (values.store === 'postgres') console.log(`  (the same in a per-search transaction: p50 ${pct(transactional, 0.5)} ms, p95 ${pct(transactional, 0.95)} ms)`);
  console.log(`  filtered   p50 ${pct(filtered, 0.5)} ms, p95 ${pct(filtered, 0.95)} ms (namespace filter matching no chunk: worst case of iterative scans)`);

  // Hybrid search through the service, with page titles as queries (what people type).
  const searchService = new SearchService(database, embedder, logger);
  const titles = docs
    .map((d) => /^title:\s*["']?(.+?)["']?\s*$/m.exec(d.content)?.[1] ?? /^#\s+(.+)$/m.exec(d.content)?.[1])
    .filter((title): title is string => title !== undefined)
    .slice(0, Number(values.queries));
  for (const query of titles.slice(0, 5)) await searchService.search({ query, topK: 5, mode: 'hybrid' }); // warm-up
  const hybrid: number[] = [];
  for (const query of titles) {
    const s = performance.now();
    await searchService.search({ query, topK: 5, mode: 'hybrid' });
    hybrid.push(performance.now() - s);
  }
  console.log(`  hybrid     p50 ${pct(hybrid, 0.5)} ms, p95 ${pct(hybrid, 0.95)} ms (${hybrid.length} page titles as queries, topK 5, local query embedding included)`);
} finally {
  await drop();
}
