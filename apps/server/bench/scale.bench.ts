/**
 * Search and the rest of the request path as the store grows: the same measures at each size of
 * a generated corpus, over HTTP on the compiled server (`pnpm build` first), each size in a
 * PostgreSQL database of its own, and the ratios of each figure to its value at the smallest size.
 *
 *   pnpm bench:scale                               # 10,000 and 100,000 chunks
 *   pnpm --filter @kb/server exec tsx bench/scale.bench.ts --chunks=10000,100000,1000000
 *
 * The corpus (see docs/benchmarks.md#scale): words drawn from the vocabulary of the real corpora
 * beside the repository (the Hugo documentation and the SciFact abstracts) at their own
 * frequencies, which follow Zipf's law, 40% of them from the document's topic; chunks of a log-normal length around 110 words, documents
 * of 1 to 40 chunks; 1,024-dimension vectors from the built-in embedder. Everything is drawn from a
 * seeded generator: the same arguments give the same corpus. 1% of the chunks are in the "wiki"
 * namespace, the rest in "user_docs".
 *
 * A store is loaded in bulk, not over HTTP: the rows are inserted with the full-text and vector
 * indexes set aside, then both indexes are built (the build times are printed). The term and
 * corpus statistics are kept by the store's own triggers during the load. With --keep, each
 * size's store is kept and measured again by the next run with the same arguments.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ApiKeysRepository, ApiKeysService, LocalEmbedder } from '@kb/core';
import { createDatabase, toVectorArrayBinary, toVectorBinary } from '@kb/db';
import { createEmptyPostgresDatabase, TEST_DATABASE_URL } from '@kb/db/testing';
import { percentile, send, startServer, stopServer, type Reply, type Server } from './http.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '10000,100000' },
    queries: { type: 'string', default: '200' },
    'recall-sample': { type: 'string', default: '20' },
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus') },
    seed: { type: 'string', default: '42' },
    // Keep each size's store (database kb_scale_<size>_<seed>) and measure it again next time
    // instead of loading it anew: for a large store, loaded once.
    keep: { type: 'boolean', default: false },
  },
});
const SIZES = values.chunks.split(',').map((s) => Number(s.trim()));
const QUERIES = Number(values.queries);
const RECALL_SAMPLE = Number(values['recall-sample']);
const TOP_K = 10;
/** A large store's server may take minutes to answer /readyz (migrations over its rows). */
const LOAD_WAIT_MS = 600_000;
/** Hybrid searches compared with and without the lexical ranking's limit. */
const LIMIT_SAMPLE = 50;
const INGEST_DOCUMENTS = 100;
const INGEST_CONCURRENCY = 4;
const FILTERED_NAMESPACE = 'wiki';
const FILTERED_SHARE = 0.01;

// --- the generated corpus -------------------------------------------------------------------

/** mulberry32: a small seeded generator, the same numbers for the same seed everywhere. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Vocabulary {
  words: string[];
  /** Cumulative frequencies, for drawing a word at its corpus frequency. */
  cumulative: Float64Array;
}

async function markdownFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await markdownFiles(path)));
    else if (entry.name.endsWith('.md')) out.push(path);
  }
  return out.sort();
}

/** The words of the Hugo docs and the SciFact abstracts with their counts (seen at least twice). */
async function loadVocabulary(corpus: string): Promise<Vocabulary> {
  const counts = new Map<string, number>();
  const count = (text: string) => {
    for (const m of text.toLowerCase().matchAll(/[a-z][a-z0-9]*(?:['-][a-z0-9]+)*/g)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  };
  for (const file of await markdownFiles(join(corpus, 'markdown-docs/hugo-docs'))) count(await readFile(file, 'utf8'));
  for (const line of (await readFile(join(corpus, 'ir-eval/scifact/corpus.jsonl'), 'utf8')).split('\n')) {
    if (!line.trim()) continue;
    const doc = JSON.parse(line) as { title: string; text: string };
    count(`${doc.title} ${doc.text}`);
  }
  const ranked = [...counts].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const cumulative = new Float64Array(ranked.length);
  let total = 0;
  ranked.forEach(([, n], i) => (cumulative[i] = total += n));
  return { words: ranked.map(([w]) => w), cumulative };
}

function drawWord(vocabulary: Vocabulary, random: () => number, from = 0): string {
  const { cumulative, words } = vocabulary;
  const low = from === 0 ? 0 : cumulative[from - 1]!;
  const x = low + random() * (cumulative[cumulative.length - 1]! - low);
  let lo = from;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return words[lo]!;
}

/** A standard normal draw (Box-Muller). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * Subjects: documents are about something, and their words cluster by it (as a real corpus's do;
 * vectors of text drawn from one global distribution are all about equally far apart, which no
 * corpus is and which no vector index handles well). A topic is 150 words past the most common
 * 300, in its own Zipf order; topics themselves are drawn by a Zipf law.
 */
const TOPICS = 500;
const TOPIC_WORDS = 150;
/** The share of a chunk's words drawn from its document's topic. */
const TOPIC_SHARE = 0.4;

function topicWords(vocabulary: Vocabulary, seed: number): string[][] {
  const random = prng(seed * 7919);
  const span = Math.min(vocabulary.words.length, 20_000) - 300;
  return Array.from({ length: TOPICS }, () => Array.from({ length: TOPIC_WORDS }, () => vocabulary.words[300 + Math.floor(random() * span)]!));
}

/** Index i in 0..n-1 with weight 1/(i+1). */
function zipfIndex(random: () => number, n: number): number {
  const harmonic = Math.log(n) + 0.5772;
  return Math.min(n - 1, Math.floor(Math.exp(random() * harmonic) - 1));
}

interface GeneratedChunk {
  headingPath: string;
  content: string;
  tokenCount: number;
}

interface GeneratedDocument {
  title: string;
  slug: string;
  namespace: string;
  chunks: GeneratedChunk[];
}

function sentence(vocabulary: Vocabulary, random: () => number, words: number, topic?: readonly string[]): string {
  const out = Array.from({ length: words }, () => (topic && random() < TOPIC_SHARE ? topic[zipfIndex(random, topic.length)]! : drawWord(vocabulary, random)));
  out[0] = out[0]!.charAt(0).toUpperCase() + out[0]!.slice(1);
  return `${out.join(' ')}.`;
}

/** Documents of about `chunks` chunks in all, the same for the same seed. */
function* generateDocuments(vocabulary: Vocabulary, seed: number, chunks: number, slugPrefix = 'doc'): Generator<GeneratedDocument> {
  const random = prng(seed);
  const topics = topicWords(vocabulary, Number(values.seed));
  let made = 0;
  for (let d = 0; made < chunks; d++) {
    const topic = topics[zipfIndex(random, TOPICS)]!;
    const title = sentence(vocabulary, random, 2 + Math.floor(random() * 4), topic).slice(0, -1);
    // Documents of 1-40 chunks, most of a few (a geometric draw with mean 8).
    const count = Math.min(chunks - made, Math.min(40, 1 + Math.floor(Math.log(1 - random()) / Math.log(1 - 1 / 8))));
    const docChunks: GeneratedChunk[] = [];
    for (let c = 0; c < count; c++) {
      const words = Math.round(Math.min(450, Math.max(15, Math.exp(Math.log(110) + 0.6 * normal(random)))));
      const sentences: string[] = [];
      for (let left = words; left > 0; ) {
        const n = Math.min(left, 8 + Math.floor(random() * 18));
        sentences.push(sentence(vocabulary, random, n, topic));
        left -= n;
      }
      const heading = sentence(vocabulary, random, 1 + Math.floor(random() * 3), topic).slice(0, -1);
      docChunks.push({ headingPath: `${title} > ${heading}`, content: sentences.join(' '), tokenCount: Math.round(words * 1.3) });
    }
    made += count;
    yield { title, slug: `${slugPrefix}-${d}`, namespace: d % Math.round(1 / FILTERED_SHARE) === 0 ? FILTERED_NAMESPACE : 'user_docs', chunks: docChunks };
  }
}

function markdownOf(doc: GeneratedDocument): string {
  return `# ${doc.title}\n\n${doc.chunks.map((c) => `## ${c.headingPath.split(' > ')[1]}\n\n${c.content}`).join('\n\n')}\n`;
}

/** Questions of 2-5 words about a topic, drawn past the most common few hundred words (as users ask). */
function generateQueries(vocabulary: Vocabulary, seed: number, count: number): string[] {
  const random = prng(seed);
  const topics = topicWords(vocabulary, Number(values.seed));
  return Array.from({ length: count }, () => {
    const topic = topics[zipfIndex(random, TOPICS)]!;
    return Array.from({ length: 2 + Math.floor(random() * 4) }, (_, i) => (i < 2 ? topic[zipfIndex(random, topic.length)]! : drawWord(vocabulary, random, 300))).join(' ');
  });
}

// --- measuring --------------------------------------------------------------------------------


async function timeEach<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (const item of items) {
    const t = performance.now();
    await fn(item);
    times.push(performance.now() - t);
  }
  return times;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function request(url: string, key: string, method: 'GET' | 'POST', body?: string): Promise<Reply> {
  return send(agent, url, method, { authorization: `Bearer ${key}` }, body);
}

async function ok<T>(promise: Promise<Reply>, what: string): Promise<T> {
  const res = await promise;
  if (res.status < 200 || res.status > 299) throw new Error(`${what} answered ${res.status}: ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body) as T;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

type Row = Record<string, number>;
const results = new Map<number, Row>();

// --- one size ---------------------------------------------------------------------------------

async function load(client: pg.Client, url: string, vocabulary: Vocabulary, chunks: number, embedder: LocalEmbedder): Promise<Row> {
  const oid = Number((await client.query(`select 'vector'::regtype::oid as oid`)).rows[0].oid);
  await client.query(`insert into namespaces (id) values ('user_docs'), ($1) on conflict do nothing`, [FILTERED_NAMESPACE]);
  await client.query('drop index if exists chunks_embedding_idx');
  await client.query('drop index if exists chunks_search_tsv_idx');
  let embedMs = 0;
  const insertStarted = performance.now();
  let batch: GeneratedDocument[] = [];
  let batchChunks = 0;
  let written = 0;
  let reported = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const docIds = batch.map(() => randomUUID());
    const rows = batch.flatMap((doc, i) => doc.chunks.map((c, ordinal) => ({ ...c, documentId: docIds[i]!, namespace: doc.namespace, ordinal })));
    const t = performance.now();
    const vectors = await embedder.embed(rows.map((r) => `${r.headingPath}\n\n${r.content}`), 'document');
    embedMs += performance.now() - t;
    await client.query('begin');
    await client.query(
      `insert into documents (id, namespace, slug, title, metadata, content_hash, content, chunk_count)
       select id, namespace, slug, title, '{}'::jsonb, md5(slug), null, n
       from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::int[]) as t(id, namespace, slug, title, n)`,
      [docIds, batch.map((d) => d.namespace), batch.map((d) => d.slug), batch.map((d) => d.title), batch.map((d) => d.chunks.length)],
    );
    await client.query(
      `insert into chunks (document_id, namespace, ordinal, heading_path, content, token_count, embedding)
       select * from unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::vector[])`,
      [
        rows.map((r) => r.documentId),
        rows.map((r) => r.namespace),
        rows.map((r) => r.ordinal),
        rows.map((r) => r.headingPath),
        rows.map((r) => r.content),
        rows.map((r) => r.tokenCount),
        toVectorArrayBinary(vectors, oid),
      ],
    );
    await client.query('commit');
    written += rows.length;
    batch = [];
    batchChunks = 0;
  };
  for (const doc of generateDocuments(vocabulary, Number(values.seed), chunks)) {
    batch.push(doc);
    batchChunks += doc.chunks.length;
    if (batchChunks >= 1000) await flush();
    if (batchChunks === 0 && written >= reported + 100_000) {
      reported = written - (written % 100_000);
      console.log(`  ${written} chunks written (${((performance.now() - insertStarted) / 1000).toFixed(0)} s)`);
    }
  }
  await flush();
  const insertMs = performance.now() - insertStarted - embedMs;
  const ginStarted = performance.now();
  await client.query(`set maintenance_work_mem = '512MB'`);
  await client.query('create index chunks_search_tsv_idx on chunks using gin (search_tsv)');
  const ginMs = performance.now() - ginStarted;
  // The vector index as the service defines it (its expression and precision). The service
  // raises the build memory to at most 1 GB; a larger graph is built in the memory its operator
  // gives the store (docs/deployment.md), as here: the graph's size, from 1.1 GB.
  const graphMb = Math.ceil((written * (1024 * 2 + 700) * 1.1) / 2 ** 20);
  if (graphMb > 1024) await client.query(`alter database ${client.escapeIdentifier(client.database!)} set maintenance_work_mem = '${graphMb}MB'`);
  const store = await createDatabase({ kind: 'postgres', databaseUrl: url, poolSize: 1 });
  const hnswStarted = performance.now();
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  const hnswMs = performance.now() - hnswStarted;
  await client.query('vacuum analyze');
  return { written, embedSeconds: embedMs / 1000, insertSeconds: insertMs / 1000, ginSeconds: ginMs / 1000, hnswSeconds: hnswMs / 1000 };
}

async function measure(size: number, vocabulary: Vocabulary, embedder: LocalEmbedder): Promise<void> {
  const scratch: { url: string; loaded?: Row; drop?: () => Promise<void> } = values.keep ? await keptDatabase(`kb_scale_${size}_${values.seed}`) : await createEmptyPostgresDatabase();
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  let server: Server | undefined;
  try {
    const store = await createDatabase({ kind: 'postgres', databaseUrl: scratch.url, poolSize: 1 });
    await store.migrate();
    const keys = new ApiKeysService(new ApiKeysRepository(store.db));
    const { key } = await keys.create({ label: 'bench-admin', admin: true });
    await store.close();

    let loaded = scratch.loaded;
    if (loaded) console.log(`\n${size.toLocaleString('en')} chunks: the store kept from an earlier run`);
    else {
      console.log(`\n${size.toLocaleString('en')} chunks: generating and loading...`);
      loaded = await load(client, scratch.url, vocabulary, size, embedder);
      if (values.keep) await client.query(`create table kb_scale_load as select $1::jsonb as figures`, [JSON.stringify(loaded)]);
    }
    // A kept store holds the documents the last run ingested: remove them, as a new store has none.
    await client.query(`delete from documents where namespace = 'tech_docs'`);
    const filtered = Number((await client.query(`select count(*) as n from chunks where namespace = $1`, [FILTERED_NAMESPACE])).rows[0].n);
    const documents = Number((await client.query('select count(*) as n from documents')).rows[0].n);
    console.log(
      `  ${loaded.written} chunks in ${documents} documents (${filtered} in "${FILTERED_NAMESPACE}"): embedded in ${loaded.embedSeconds!.toFixed(1)} s, ` +
        `inserted in ${loaded.insertSeconds!.toFixed(1)} s, full-text index ${loaded.ginSeconds!.toFixed(1)} s, vector index ${loaded.hnswSeconds!.toFixed(1)} s`,
    );

    server = await startServer({ DATABASE_URL: scratch.url }, LOAD_WAIT_MS);
    const queries = generateQueries(vocabulary, Number(values.seed) + 1, QUERIES);
    const search = (query: string, mode: 'semantic' | 'hybrid', source?: string) =>
      ok<{ results: Array<{ chunkId: string }> }>(request(`${server!.url}/api/v1/search`, key, 'POST', JSON.stringify({ query, topK: TOP_K, mode, ...(source ? { source } : {}) })), 'search');

    for (const q of queries.slice(0, 20)) {
      await search(q, 'semantic');
      await search(q, 'hybrid');
    }
    const row: Row = { ...loaded, documents };
    const semantic = await timeEach(queries, (q) => search(q, 'semantic'));
    const hybrid = await timeEach(queries, (q) => search(q, 'hybrid'));
    row.semanticP50 = percentile(semantic, 50);
    row.semanticP95 = percentile(semantic, 95);
    row.hybridP50 = percentile(hybrid, 50);
    row.hybridP95 = percentile(hybrid, 95);

    // The lexical ranking's limit (KB_SEARCH_LEXICAL_CANDIDATES) against none: what hybrid search
    // costs and returns when BM25 scores every chunk holding a query word.
    const exactServer = await startServer({ DATABASE_URL: scratch.url, KB_SEARCH_LEXICAL_CANDIDATES: '0' }, LOAD_WAIT_MS);
    try {
      const sample = queries.slice(0, LIMIT_SAMPLE);
      const unlimited: string[][] = [];
      const unlimitedTimes = await timeEach(sample, async (q) => {
        const body = JSON.stringify({ query: q, topK: TOP_K, mode: 'hybrid' });
        unlimited.push((await ok<{ results: Array<{ chunkId: string }> }>(request(`${exactServer.url}/api/v1/search`, key, 'POST', body), 'search')).results.map((r) => r.chunkId));
      });
      let shared = 0;
      for (let i = 0; i < sample.length; i++) {
        const limited = new Set((await search(sample[i]!, 'hybrid')).results.map((r) => r.chunkId));
        shared += unlimited[i]!.filter((id) => limited.has(id)).length;
      }
      row.hybridUnlimitedP50 = percentile(unlimitedTimes, 50);
      row.hybridSharedWithUnlimited = shared / Math.max(1, unlimited.reduce((n, ids) => n + ids.length, 0));
    } finally {
      await stopServer(exactServer);
    }

    // A search filtered to the namespace of 1% of the chunks: fast, and still topK results.
    let short = 0;
    const filteredQueries = queries.slice(0, 100);
    row.filteredSearches = filteredQueries.length;
    const filteredTimes = await timeEach(filteredQueries, async (q) => {
      const found = await search(q, 'semantic', FILTERED_NAMESPACE);
      if (found.results.length < TOP_K) short++;
    });
    row.filteredP50 = percentile(filteredTimes, 50);
    row.filteredShort = short;

    // Chat: retrieval and the built-in answerer, answered whole.
    const chat = await timeEach(queries.slice(0, 30), (q) => ok(request(`${server!.url}/api/v1/chat`, key, 'POST', JSON.stringify({ message: `What is ${q}?`, stream: false })), 'chat'));
    row.chatP50 = percentile(chat, 50);

    // Recall@10 of the service's semantic search (the vector index) against exact search.
    const exactClient = new pg.Client({ connectionString: scratch.url });
    await exactClient.connect();
    let overlap = 0;
    const sample = queries.slice(0, RECALL_SAMPLE);
    const sampleVectors = await embedder.embed(sample, 'query');
    for (let i = 0; i < sample.length; i++) {
      const served = new Set((await search(sample[i]!, 'semantic')).results.map((r) => r.chunkId));
      const exact = await exactClient.query(`select id from chunks order by embedding <=> $1::vector limit ${TOP_K}`, [toVectorBinary(sampleVectors[i]!)]);
      overlap += exact.rows.filter((r: { id: string }) => served.has(r.id)).length;
    }
    await exactClient.end();
    row.recall10 = overlap / (sample.length * TOP_K);

    // Admin list pages: the first, one deep by offset, the same depth by cursor.
    const depth = Math.floor(documents * 0.9);
    const listUrl = (query: string) => `${server!.url}/api/v1/documents?limit=50${query}`;
    const at = (
      await client.query(
        `select to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, id from documents order by updated_at desc, id offset $1 limit 1`,
        [depth - 1],
      )
    ).rows[0] as { at: string; id: string };
    const cursor = Buffer.from(JSON.stringify([at.at, at.id])).toString('base64url');
    const reps = Array.from({ length: 20 }, (_, i) => i);
    row.listFirstP50 = percentile(await timeEach(reps, () => ok(request(listUrl(''), key, 'GET'), 'list')), 50);
    row.listOffsetP50 = percentile(await timeEach(reps, () => ok(request(listUrl(`&offset=${depth}`), key, 'GET'), 'list')), 50);
    row.listCursorP50 = percentile(await timeEach(reps, () => ok(request(listUrl(`&cursor=${cursor}`), key, 'GET'), 'list')), 50);

    // Ingestion of new documents into the store, then the same documents again, unchanged.
    const fresh = [...generateDocuments(vocabulary, Number(values.seed) + 2, INGEST_DOCUMENTS * 8, 'new')].slice(0, INGEST_DOCUMENTS);
    const freshChunks = fresh.reduce((n, d) => n + d.chunks.length, 0);
    const ingestAll = async () => {
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: INGEST_CONCURRENCY }, async () => {
          while (next < fresh.length) {
            const doc = fresh[next++]!;
            await ok(request(`${server!.url}/api/v1/ingest/md`, key, 'POST', JSON.stringify({ title: doc.title, slug: doc.slug, namespace: 'tech_docs', content: markdownOf(doc) })), 'ingest');
          }
        }),
      );
      return (performance.now() - started) / 1000;
    };
    const before = Number((await client.query(`select count(*) as n from chunks where namespace = 'tech_docs'`)).rows[0].n);
    const ingestSeconds = await ingestAll();
    const ingested = Number((await client.query(`select count(*) as n from chunks where namespace = 'tech_docs'`)).rows[0].n) - before;
    row.ingestChunksPerSecond = ingested / ingestSeconds;
    row.ingestDocumentsPerSecond = fresh.length / ingestSeconds;
    row.reingestDocumentsPerSecond = fresh.length / (await ingestAll());
    if (ingested < freshChunks * 0.5) throw new Error(`ingested ${ingested} chunks of about ${freshChunks}`);

    row.serverRssMb = await rssMb(server.process.pid!);
    const size_ = async (name: string) => Number((await client.query(`select pg_relation_size($1::regclass) as n`, [name])).rows[0].n) / 2 ** 20;
    row.vectorIndexMb = await size_('chunks_embedding_idx');
    row.textIndexMb = await size_('chunks_search_tsv_idx');
    row.tableMb = Number((await client.query(`select pg_table_size('chunks') as n`)).rows[0].n) / 2 ** 20;
    row.termStatsMb = Number((await client.query(`select pg_total_relation_size('term_stats') as n`)).rows[0].n) / 2 ** 20;
    row.terms = Number((await client.query('select count(*) as n from term_stats')).rows[0].n);
    results.set(size, row);
    printSize(size, row);
  } finally {
    if (server) await stopServer(server);
    await client.end();
    await scratch.drop?.();
  }
}

/** The database of a kept store, made when missing; with the load figures when it was loaded. */
async function keptDatabase(name: string): Promise<{ url: string; loaded: Row | undefined }> {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    let loaded: Row | undefined;
    if ((await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount! > 0) {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      loaded = (await client.query('select figures from kb_scale_load').catch(() => ({ rows: [] }))).rows[0]?.figures as Row | undefined;
      await client.end();
      if (loaded) return { url: url.toString(), loaded };
      // A load interrupted before it recorded its figures starts again.
      await admin.query(`drop database "${name}" with (force)`);
    }
    await admin.query(`create database "${name}"`);
    return { url: url.toString(), loaded: undefined };
  } finally {
    await admin.end();
  }
}

function printSize(size: number, r: Row): void {
  const f = (n: number, d = 1) => n.toFixed(d);
  console.log(`  semantic search p50 ${f(r.semanticP50!, 2)} ms, p95 ${f(r.semanticP95!, 2)} ms; hybrid p50 ${f(r.hybridP50!, 2)} ms, p95 ${f(r.hybridP95!, 2)} ms`);
  console.log(
    `  hybrid without the lexical limit (KB_SEARCH_LEXICAL_CANDIDATES=0): p50 ${f(r.hybridUnlimitedP50!, 2)} ms; top ${TOP_K} shared with the limited ranking ${f(r.hybridSharedWithUnlimited!, 3)}`,
  );
  console.log(`  filtered to "${FILTERED_NAMESPACE}" (1%): p50 ${f(r.filteredP50!, 2)} ms, ${r.filteredShort} of ${r.filteredSearches} searches short of ${TOP_K} results`);
  console.log(`  chat (retrieval and the built-in answerer) p50 ${f(r.chatP50!, 2)} ms; recall@10 of the vector index vs exact: ${f(r.recall10!, 3)}`);
  console.log(`  documents list p50: first page ${f(r.listFirstP50!, 2)} ms, at 90% by offset ${f(r.listOffsetP50!, 2)} ms, by cursor ${f(r.listCursorP50!, 2)} ms`);
  console.log(`  ingestion of ${INGEST_DOCUMENTS} new documents: ${f(r.ingestChunksPerSecond!, 0)} chunks/s (${f(r.ingestDocumentsPerSecond!)} documents/s); unchanged again ${f(r.reingestDocumentsPerSecond!)} documents/s`);
  console.log(`  sizes: vector index ${f(r.vectorIndexMb!)} MB, full-text index ${f(r.textIndexMb!)} MB, table ${f(r.tableMb!)} MB, term statistics ${f(r.termStatsMb!)} MB (${r.terms} terms); server RSS ${f(r.serverRssMb!, 0)} MB`);
  void size;
}

function printCurve(): void {
  const sizes = [...results.keys()].sort((a, b) => a - b);
  if (sizes.length < 2) return;
  const base = results.get(sizes[0]!)!;
  const rows: Array<[string, keyof Row, number, string]> = [
    ['semantic p50 (ms)', 'semanticP50', 2, `<= 2x at the largest`],
    ['semantic p95 (ms)', 'semanticP95', 2, ''],
    ['hybrid p50 (ms)', 'hybridP50', 2, '<= 3x at the largest'],
    ['hybrid p95 (ms)', 'hybridP95', 2, ''],
    ['hybrid, no lexical limit, p50 (ms)', 'hybridUnlimitedP50', 2, ''],
    ['hybrid top 10 shared with no limit', 'hybridSharedWithUnlimited', 3, ''],
    ['filtered 1% p50 (ms)', 'filteredP50', 2, ''],
    ['chat p50 (ms)', 'chatP50', 2, ''],
    ['list at 90%, offset (ms)', 'listOffsetP50', 2, ''],
    ['list at 90%, cursor (ms)', 'listCursorP50', 2, ''],
    ['ingest (chunks/s)', 'ingestChunksPerSecond', 0, ''],
    ['unchanged re-ingest (docs/s)', 'reingestDocumentsPerSecond', 1, ''],
    ['recall@10', 'recall10', 3, ''],
    ['vector index (MB)', 'vectorIndexMb', 0, ''],
    ['server RSS (MB)', 'serverRssMb', 0, ''],
  ];
  console.log(`\nThe curve (ratio to ${sizes[0]!.toLocaleString('en')} chunks in brackets)`);
  const head = ['', ...sizes.map((s) => `${s.toLocaleString('en')} chunks`), 'target'];
  const table = rows.map(([label, key, digits, target]) => [
    label,
    ...sizes.map((s, i) => {
      const v = results.get(s)![key]!;
      return i === 0 ? v.toFixed(digits) : `${v.toFixed(digits)} (${(v / base[key]!).toFixed(2)}x)`;
    }),
    target,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  for (const r of [head, ...table]) console.log('  ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
}

const vocabulary = await loadVocabulary(values.corpus);
console.log(`Vocabulary: ${vocabulary.words.length} words of the Hugo docs and SciFact (seen twice or more), drawn at their frequencies`);
const embedder = new LocalEmbedder();
try {
  for (const size of SIZES) await measure(size, vocabulary, embedder);
  printCurve();
} finally {
  agent.destroy();
}
