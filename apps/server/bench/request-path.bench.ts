/**
 * The request path against its own limit, side by side in one run (issue: speed where users feel
 * it). Each row prints the service's figure over HTTP, the limit's figure measured in the same
 * run on the same table, and their ratio:
 *
 * - the HTTP floor: the same client's round trip to a route that does nothing (GET /healthz),
 *   measured in the same rounds; every latency limit below is a raw statement plus the floor;
 * - semantic search p50: the HNSW query on the service's chunks table, as its index is defined
 *   (ef_search 100), from a plain pg client, plus the floor;
 * - hybrid search p50: one SQL statement fusing full text (ts_rank_cd) and the HNSW ranking by
 *   reciprocal rank over the same table, plus the floor;
 * - 8 concurrent clients, semantic search: requests/s against the combined limit of the raw
 *   query from 8 connections and the floor from 8 clients, 1 / (1/raw + 1/floor) (on a shared
 *   CPU their costs add);
 * - ingestion, 4 concurrent single-document POST /ingest/md: chunks/s against inserting the same
 *   rows server-side (INSERT ... SELECT) into a table of the same shape and indexes.
 *
 * Then the server's CPU time per request of each kind (user + system time of its process over
 * --cpu-requests requests a kind, one client, in interleaved rounds) beside the floor's
 * (GET /healthz): what a request costs the service's own process, whatever the machine's load
 * does to latencies. --redis=URL runs the server in services mode (rate-limit counters in Redis).
 * --profile=semantic|hybrid|floor restarts the server with `node --cpu-prof` after the corpus is
 * written and sends it --cpu-requests requests of that kind only (profile in --profile-dir).
 *
 * With --store=pglite it measures the embedded store instead (the server's own on-disk store,
 * its database on a thread of its own): hybrid search p50 over HTTP.
 *
 * The server runs as `pnpm start` runs it (compiled, a process of its own: `pnpm build` first);
 * the client is node:http with keep-alive connections.
 *
 *   pnpm --filter @kb/server bench
 *   npx tsx bench/request-path.bench.ts [--store=postgres|pglite] [--copies=2] [--requests=200]
 *
 * The corpus is written through the service, then vacuumed and analysed (what PostgreSQL's
 * autovacuum does within a minute of a write; the embedded store does the same itself).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ApiKeysRepository, ApiKeysService, LocalEmbedder } from '@kb/core';
import { createDatabase, toVectorBinary } from '@kb/db';
import { createEmptyPostgresDatabase } from '@kb/db/testing';
import { percentile, processCpuMs, send, startServer, stopServer, type Reply, type Server } from './http.ts';
import { loadCorpus, type CorpusDocument } from './answer-quality.ts';
import questions from './hugo-questions.json' with { type: 'json' };

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'postgres' },
    copies: { type: 'string', default: '2' },
    requests: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '5' },
    'cpu-requests': { type: 'string', default: '600' },
    redis: { type: 'string' },
    profile: { type: 'string' },
    'profile-dir': { type: 'string', default: join(tmpdir(), 'kb-profiles') },
    /** Skip the 8-client and ingestion rows (latency and CPU only). */
    quick: { type: 'boolean', default: false },
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/markdown-docs/hugo-docs') },
  },
});
const copies = Number(values.copies);
const requests = Number(values.requests);
const cpuRequests = Number(values['cpu-requests']);
const seconds = Number(values.seconds);
const TOP_K = 10;
const CONCURRENCY = 8;
const INGEST_CONCURRENCY = 4;

const table: Array<[string, string, string, string, string]> = [];
function report(what: string, service: number, limit: number, unit: string, target: string): void {
  const ratio = service / limit;
  table.push([what, `${service.toFixed(unit === 'ms' ? 2 : 0)} ${unit}`, `${limit.toFixed(unit === 'ms' ? 2 : 0)} ${unit}`, `${ratio.toFixed(2)}x`, target]);
}
function printTable(title: string): void {
  console.log(`\n${title}`);
  const head: [string, string, string, string, string] = ['path', 'the service, over HTTP', 'its limit, same run', 'ratio', 'target'];
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  for (const r of [head, ...table]) console.log('  ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  table.length = 0;
}

/** Runs `fn` over `items` in order, sequentially; returns each call's milliseconds. */
async function timeEach<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (const item of items) {
    const t = performance.now();
    await fn(item);
    times.push(performance.now() - t);
  }
  return times;
}

/** Calls per second that `workers` loops of `fn` complete in `ms`. */
async function throughput(workers: number, ms: number, fn: (worker: number, i: number) => Promise<unknown>): Promise<number> {
  const until = performance.now() + ms;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; performance.now() < until; i++) {
        await fn(w, i);
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** GETs a route that does nothing: the HTTP floor. */
function floor(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/healthz`, { method: 'GET', agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`healthz answered ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** POSTs JSON; resolves with the status and body. */
function post(url: string, key: string, body: string): Promise<Reply> {
  return send(agent, url, 'POST', { authorization: `Bearer ${key}` }, body);
}

const queries = Array.from({ length: requests }, (_, i) => questions[i % questions.length]!.question);

async function search(server: Server, key: string, query: string, mode: 'semantic' | 'hybrid'): Promise<void> {
  const res = await post(`${server.url}/api/v1/search`, key, JSON.stringify({ query, topK: TOP_K, mode }));
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${res.body}`);
  if ((JSON.parse(res.body) as { results: unknown[] }).results.length === 0) throw new Error(`no results for ${query}`);
}

/** Copies of the corpus differ by slug prefix (copy N of a page is another document). */
function ingestBody(doc: CorpusDocument, namespace: string, prefix: string) {
  return JSON.stringify({ title: doc.title, slug: `${prefix}${doc.slug}`, content: doc.content, namespace });
}

async function ingestAll(server: Server, key: string, docs: readonly CorpusDocument[], namespace: string, prefix: string, concurrency: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < docs.length) {
        const doc = docs[next++]!;
        const res = await post(`${server.url}/api/v1/ingest/md`, key, ingestBody(doc, namespace, prefix));
        if (res.status !== 200 && res.status !== 201) throw new Error(`ingest answered ${res.status}: ${res.body}`);
      }
    }),
  );
}

const corpus = await loadCorpus(values.corpus);
const embedder = new LocalEmbedder();
const queryVectors = await embedder.embed(queries, 'query');

if (values.store === 'postgres') {
  const scratch = await createEmptyPostgresDatabase();
  const serverEnv: Record<string, string> = { DATABASE_URL: scratch.url, ...(values.redis ? { REDIS_URL: values.redis } : {}) };
  let service = await startServer(serverEnv);
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  const connections = await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const c = new pg.Client({ connectionString: scratch.url });
      await c.connect();
      // As the service's vector connections run (see Database.withVectorSearch): the index's plan.
      await c.query(`set hnsw.ef_search = 100; set enable_seqscan = off`);
      return c;
    }),
  );
  try {
    const store = await createDatabase({ kind: 'postgres', databaseUrl: scratch.url, poolSize: 1 });
    const keys = new ApiKeysService(new ApiKeysRepository(store.db));
    const { key: adminKey } = await keys.create({ label: 'bench-admin', admin: true });
    // Limits high enough never to refuse, so that every search counts its rate-limit windows as a real key's does.
    const { key } = await keys.create({ label: 'bench', admin: false, rateLimitRpm: 1_000_000, rateLimitRpd: 100_000_000 });
    await store.close();
    const started = performance.now();
    for (let copy = 0; copy < copies; copy++) await ingestAll(service, adminKey, corpus, 'user_docs', `copy${copy}/`, INGEST_CONCURRENCY);
    await client.query('vacuum analyze');
    const chunks = Number((await client.query('select count(*) as n from chunks')).rows[0].n);
    console.log(`PostgreSQL: ${copies} copies of ${corpus.length} Hugo pages, ${chunks} chunks (${((performance.now() - started) / 1000).toFixed(1)} s)${values.redis ? ', services mode (Redis)' : ''}`);

    if (values.profile !== undefined) {
      const kind = values.profile;
      if (!['semantic', 'hybrid', 'floor'].includes(kind)) throw new Error('--profile is semantic, hybrid or floor');
      await stopServer(service);
      service = await startServer(serverEnv, 120_000, ['--cpu-prof', `--cpu-prof-dir=${values['profile-dir']}`]);
      const one = (i: number) => (kind === 'floor' ? floor(service.url) : search(service, key, queries[i % queries.length]!, kind as 'semantic' | 'hybrid'));
      for (let i = 0; i < 50; i++) await one(i);
      const cpuBefore = processCpuMs(service.process.pid!);
      const t = performance.now();
      for (let i = 0; i < cpuRequests; i++) await one(i);
      const cpu = processCpuMs(service.process.pid!) - cpuBefore;
      console.log(`profiled ${cpuRequests} ${kind} requests: ${(cpu / cpuRequests).toFixed(2)} ms CPU, ${((performance.now() - t) / cpuRequests).toFixed(2)} ms wall a request; profile in ${values['profile-dir']}`);
    } else {

      const dimension = queryVectors[0]!.length;
      const indexDef = String((await client.query(`select indexdef from pg_indexes where indexname = 'chunks_embedding_idx'`)).rows[0].indexdef);
      const halfvec = indexDef.includes('halfvec');
      const cast = halfvec ? `halfvec(${dimension})` : `vector(${dimension})`;
      const semanticSql = `select id from chunks order by embedding::${cast} <=> $1::vector::${cast} limit ${TOP_K}`;
      // Reciprocal rank fusion (k 60) of the 100 best by ts_rank_cd over the full-text index and the
      // 100 nearest by the HNSW index, in one statement: the common recipe, whose full-text side
      // matches chunks holding every term of the query (websearch_to_tsquery), and the same
      // statement matching any of its terms, as the service's lexical side does.
      const fusionSql = (tsquery: string) => `
        with q as (select ${tsquery} as q),
        v as (select id, row_number() over () as r from (select id from chunks order by embedding::${cast} <=> $1::vector::${cast} limit 100) s),
        l as (select id, row_number() over (order by rank desc) as r from (
          select c.id, ts_rank_cd(c.search_tsv, q.q) as rank from chunks c, q where c.search_tsv @@ q.q order by rank desc limit 100) s)
        select c.id, c.content, sum(1.0 / (60 + f.r)) as score
        from (select * from v union all select * from l) f join chunks c on c.id = f.id
        group by c.id, c.content order by score desc limit ${TOP_K}`;
      const hybridSql = fusionSql(`websearch_to_tsquery('english', $2)`);
      const hybridAnySql = fusionSql(`replace(plainto_tsquery('english', $2)::text, '&', '|')::tsquery`);
      await client.query('set hnsw.ef_search = 100; set enable_seqscan = off');
      const params = queryVectors.map((v) => toVectorBinary(v));

      // Warm both sides.
      for (let i = 0; i < 20; i++) {
        await client.query(semanticSql, [params[i]]);
        await client.query(hybridSql, [params[i], queries[i]]);
        await client.query(hybridAnySql, [params[i], queries[i]]);
        await search(service, key, queries[i]!, 'semantic');
        await search(service, key, queries[i]!, 'hybrid');
      }
      // Interleaved rounds so that a busy moment of the machine falls on both sides.
      const rawSemantic: number[] = [];
      const httpSemantic: number[] = [];
      const rawHybrid: number[] = [];
      const rawHybridAny: number[] = [];
      const httpHybrid: number[] = [];
      const httpFloor: number[] = [];
      for (let round = 0; round < 4; round++) {
        const slice = queries.map((q, i) => i).filter((i) => i % 4 === round);
        httpFloor.push(...(await timeEach(slice, () => floor(service.url))));
        rawSemantic.push(...(await timeEach(slice, (i) => client.query(semanticSql, [params[i]]))));
        httpSemantic.push(...(await timeEach(slice, (i) => search(service, key, queries[i]!, 'semantic'))));
        rawHybrid.push(...(await timeEach(slice, (i) => client.query(hybridSql, [params[i], queries[i]]))));
        rawHybridAny.push(...(await timeEach(slice, (i) => client.query(hybridAnySql, [params[i], queries[i]]))));
        httpHybrid.push(...(await timeEach(slice, (i) => search(service, key, queries[i]!, 'hybrid'))));
      }
      const floorP50 = percentile(httpFloor, 50);
      console.log(`HTTP floor (GET /healthz, same client) p50 ${floorP50.toFixed(2)} ms`);
      report('semantic search p50 (limit: raw + floor)', percentile(httpSemantic, 50), percentile(rawSemantic, 50) + floorP50, 'ms', '<= 1.5x');
      report('hybrid search p50 (fusion of all terms + floor)', percentile(httpHybrid, 50), percentile(rawHybrid, 50) + floorP50, 'ms', '<= 2x');
      report('hybrid search p50 (fusion of any term + floor)', percentile(httpHybrid, 50), percentile(rawHybridAny, 50) + floorP50, 'ms', '');

      // Server CPU per request, each kind against the floor's, in interleaved rounds.
      const cpu = { floor: 0, semantic: 0, hybrid: 0 };
      const pid = service.process.pid!;
      const rounds = 4;
      for (let round = 0; round < rounds; round++) {
        const slice = Array.from({ length: Math.ceil(cpuRequests / rounds) }, (_, i) => round + i * rounds);
        for (const kind of ['floor', 'semantic', 'hybrid'] as const) {
          const before = processCpuMs(pid);
          for (const i of slice) await (kind === 'floor' ? floor(service.url) : search(service, key, queries[i % queries.length]!, kind));
          cpu[kind] += processCpuMs(pid) - before;
        }
      }
      const perRequest = (kind: keyof typeof cpu) => cpu[kind] / (rounds * Math.ceil(cpuRequests / rounds));
      console.log(`Server CPU per request (user + system, ${rounds * Math.ceil(cpuRequests / rounds)} requests a kind): floor ${perRequest('floor').toFixed(2)} ms, semantic ${perRequest('semantic').toFixed(2)} ms, hybrid ${perRequest('hybrid').toFixed(2)} ms`);
      report('semantic search, server CPU a request (limit: the floor\'s)', perRequest('semantic'), perRequest('floor'), 'ms', '<= 4x');
      report('hybrid search, server CPU a request (limit: the floor\'s)', perRequest('hybrid'), perRequest('floor'), 'ms', '<= 10x');

      const ms = seconds * 1000;
      if (!values.quick) {
        const rawRate = await throughput(CONCURRENCY, ms, (w, i) => connections[w]!.query(semanticSql, [params[(w * 31 + i) % params.length]]));
        const floorRate = await throughput(CONCURRENCY, ms, () => floor(service.url));
        const httpRate = await throughput(CONCURRENCY, ms, (w, i) => search(service, key, queries[(w * 31 + i) % queries.length]!, 'semantic'));
        report(`semantic search, ${CONCURRENCY} concurrent clients (limit: 1/(1/raw + 1/floor))`, httpRate, 1 / (1 / rawRate + 1 / floorRate), 'req/s', '>= 0.7x');

        // Ingestion: the corpus again into a new namespace, four single-document requests at a time.
        const before = Number((await client.query('select count(*) as n from chunks')).rows[0].n);
        const ingestStarted = performance.now();
        await ingestAll(service, adminKey, corpus, 'tech_docs', '', INGEST_CONCURRENCY);
        const ingestSeconds = (performance.now() - ingestStarted) / 1000;
        const written = Number((await client.query('select count(*) as n from chunks')).rows[0].n) - before;
        // The limit: the same rows copied server-side into a table of the same shape and indexes.
        await client.query('create table chunks_limit (like chunks including all)');
        const columns = (
          await client.query(`select column_name from information_schema.columns where table_name = 'chunks' and is_generated = 'NEVER' order by ordinal_position`)
        ).rows.map((r: { column_name: string }) => `"${r.column_name}"`).join(', ');
        const copyStarted = performance.now();
        await client.query(`insert into chunks_limit (${columns}) select ${columns} from chunks where namespace = 'tech_docs'`);
        const copySeconds = (performance.now() - copyStarted) / 1000;
        await client.query('drop table chunks_limit');
        report(`ingestion, ${INGEST_CONCURRENCY} concurrent POST /ingest/md`, written / ingestSeconds, written / copySeconds, 'chunks/s', '>= 0.7x');
      }
      printTable(`The request path on PostgreSQL, ${chunks} chunks, local embedder (${requests} queries a row, p50)`);
    }
  } finally {
    await Promise.all(connections.map((c) => c.end()));
    await client.end();
    await stopServer(service);
    await scratch.drop();
  }
} else {
  const dataDir = await mkdtemp(join(tmpdir(), 'kb-bench-'));
  // Keys first: the embedded store is the server's alone once it runs.
  const store = await createDatabase({ kind: 'pglite', dataDir });
  await store.migrate();
  const keys = new ApiKeysService(new ApiKeysRepository(store.db));
  const { key: adminKey } = await keys.create({ label: 'bench-admin', admin: true });
  const { key } = await keys.create({ label: 'bench', admin: false });
  await store.close();
  const service = await startServer({ KB_DATA_DIR: dataDir });
  try {
    const started = performance.now();
    await ingestAll(service, adminKey, corpus, 'user_docs', '', INGEST_CONCURRENCY);
    console.log(`\nEmbedded store on disk: ${corpus.length} Hugo pages (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    // What the store's own vacuum does within seconds of a write (see @kb/db's embedded-vacuum.ts).
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    for (let i = 0; i < 20; i++) await search(service, key, queries[i]!, 'hybrid');
    const semantic = await timeEach(queries, (q) => search(service, key, q, 'semantic'));
    const hybrid = await timeEach(queries, (q) => search(service, key, q, 'hybrid'));
    console.log(`  semantic search p50 over HTTP: ${percentile(semantic, 50).toFixed(2)} ms (p95 ${percentile(semantic, 95).toFixed(2)} ms)`);
    console.log(`  hybrid search p50 over HTTP:   ${percentile(hybrid, 50).toFixed(2)} ms (p95 ${percentile(hybrid, 95).toFixed(2)} ms)   target <= 10 ms`);
  } finally {
    await stopServer(service);
    await rm(dataDir, { recursive: true, force: true });
  }
}
agent.destroy();
