/**
 * What metrics cost a request: search p50 over HTTP from a server with KB_METRICS on against the
 * same server with metrics off, in one run, on one PostgreSQL store both servers share (the same
 * rows, the same indexes, the same cache). Requests alternate between the two servers query by
 * query, so a busy moment of the machine falls on both sides. Target: at most 1.03x.
 *
 *   npx tsx bench/metrics.bench.ts [--docs=200] [--requests=400]
 *
 * Both servers run from the TypeScript sources, as `pnpm dev` runs them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ApiKeysRepository, ApiKeysService, NO_METRICS, PrometheusMetrics, type Metrics } from '@kb/core';
import { createDatabase } from '@kb/db';
import { createEmptyPostgresDatabase } from '@kb/db/testing';
import { freePort, repoRoot, waitFor } from '../test/processes.ts';
import { loadCorpus } from './answer-quality.ts';
import questions from './hugo-questions.json' with { type: 'json' };

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '200' },
    requests: { type: 'string', default: '400' },
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/markdown-docs/hugo-docs') },
  },
});
const TOKEN = 'bench-metrics-token-0123456789';
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function request(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method, agent, headers: { ...init.headers, ...(init.body ? { 'content-length': String(Buffer.byteLength(init.body)) } : {}) } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
const post = (url: string, key: string, body: unknown) =>
  request(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

const percentile = (xs: readonly number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function startServer(env: Record<string, string>): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', '--max-semi-space-size=32', 'apps/server/src/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', KB_QUERY_LOG_DAYS: '0' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`, 120_000);
  return { url, process: child };
}

async function stop(server: { process: ChildProcess }): Promise<void> {
  const exited = new Promise((resolve) => server.process.once('exit', resolve));
  server.process.kill('SIGTERM');
  await exited;
}

const scratch = await createEmptyPostgresDatabase();
const corpus = (await loadCorpus(values.corpus)).slice(0, Number(values.docs));
const queries = Array.from({ length: Number(values.requests) }, (_, i) => questions[i % questions.length]!.question);
// The store migrated and its key made before the servers start (they then make no first key).
const store = await createDatabase({ kind: 'postgres', databaseUrl: scratch.url, poolSize: 1 });
await store.migrate();
const { key } = await new ApiKeysService(new ApiKeysRepository(store.db)).create({ label: 'bench', admin: true });
await store.close();
const off = await startServer({ DATABASE_URL: scratch.url });
const on = await startServer({ DATABASE_URL: scratch.url, KB_METRICS: 'true', KB_METRICS_TOKEN: TOKEN });
try {
  const started = performance.now();
  for (const doc of corpus) {
    const res = await post(`${off.url}/api/v1/ingest/md`, key, { title: doc.title, slug: doc.slug, content: doc.content, namespace: 'user_docs' });
    if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${res.body}`);
  }
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  await client.query('vacuum analyze');
  const chunks = Number((await client.query('select count(*) as n from chunks')).rows[0].n);
  await client.end();
  console.log(`PostgreSQL: ${corpus.length} Hugo pages, ${chunks} chunks (${((performance.now() - started) / 1000).toFixed(1)} s)`);

  const search = async (server: { url: string }, query: string, mode: string): Promise<number> => {
    const t = performance.now();
    const res = await post(`${server.url}/api/v1/search`, key, { query, topK: 10, mode });
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`search answered ${res.status}: ${res.body}`);
    return ms;
  };
  for (const mode of ['semantic', 'hybrid']) {
    for (let i = 0; i < 30; i++) {
      await search(off, queries[i]!, mode);
      await search(on, queries[i]!, mode);
    }
  }
  const rows: string[][] = [];
  for (const mode of ['semantic', 'hybrid']) {
    const times = { on: [] as number[], off: [] as number[] };
    for (const [i, query] of queries.entries()) {
      // Which server goes first alternates too.
      if (i % 2 === 0) {
        times.off.push(await search(off, query, mode));
        times.on.push(await search(on, query, mode));
      } else {
        times.on.push(await search(on, query, mode));
        times.off.push(await search(off, query, mode));
      }
    }
    const [a, b] = [percentile(times.on, 50), percentile(times.off, 50)];
    rows.push([`${mode} search p50`, `${a.toFixed(2)} ms`, `${b.toFixed(2)} ms`, `${(a / b).toFixed(3)}x`, '<= 1.03x']);
  }
  const scraped = await request(`${on.url}/metrics`, { method: 'GET', headers: { authorization: `Bearer ${TOKEN}` } });
  const counted = /^kb_search_duration_seconds_count\{[^}]*mode="semantic"[^}]*\} (\d+)$/m.exec(scraped.body)?.[1];
  console.log(`\nMetrics on against off, same run, ${queries.length} queries a row (the metrics server counted ${counted} semantic searches)`);
  const head = ['path', 'metrics on', 'metrics off (limit)', 'ratio', 'target'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const r of [head, ...rows]) console.log('  ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));

  // The recorder's own cost, without the network's noise: what one search request records.
  const perRequest = (recorder: Metrics, n: number) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) {
      recorder.httpInFlight(1);
      recorder.search('semantic', 0.02, 10);
      recorder.providerCall('voyage', 'embed', 'ok', 0.01);
      recorder.httpInFlight(-1);
      recorder.httpRequest('/api/v1/search', 'POST', 200, 0.022);
    }
    return ((performance.now() - t) * 1000) / n;
  };
  const recorder = new PrometheusMetrics();
  perRequest(recorder, 20_000);
  perRequest(NO_METRICS, 20_000);
  const onMicros = perRequest(recorder, 200_000);
  const offMicros = perRequest(NO_METRICS, 200_000);
  console.log(
    `\nRecording one search request's metrics in process: ${onMicros.toFixed(2)} µs (off: ${offMicros.toFixed(3)} µs), ` +
      `${((onMicros / 1000 / Number(rows[0]![2]!.split(' ')[0])) * 100).toFixed(3)} % of the semantic p50 with metrics off`,
  );
} finally {
  await Promise.all([stop(off), stop(on)]);
  await scratch.drop();
  agent.destroy();
}
