/**
 * Ingestion over HTTP against its limit, side by side in one run: the Hugo documentation posted
 * as single-document `POST /api/v1/ingest/md` requests, 4 at a time, into an empty PostgreSQL
 * store, in chunks/s; the limit is the same rows written server-side (`INSERT ... SELECT` from
 * the chunks just written into an empty table of the same shape and indexes), as the request-path
 * benchmark defines it. Each round empties the store first; rounds interleave the two sides.
 * Also printed, since a shared machine's load moves wall-clock figures: the CPU time (utime +
 * stime) a chunk of the server's process, of the store's backends serving it, and of the
 * limit's backend, and the ratio of the limit's CPU to the service's (server and store).
 *
 *   pnpm build && pnpm --filter @kb/server exec tsx bench/ingest-path.bench.ts [--rounds=2] [--profile-dir=DIR]
 *
 * --profile-dir starts the server with `--cpu-prof` and writes its profile there when it stops.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ApiKeysRepository, ApiKeysService } from '@kb/core';
import { createDatabase } from '@kb/db';
import { createEmptyPostgresDatabase } from '@kb/db/testing';
import { send, startServer, stopServer, type Server } from './http.ts';
import { loadCorpus, type CorpusDocument } from './answer-quality.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    'profile-dir': { type: 'string' },
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/markdown-docs/hugo-docs') },
  },
});
const CONCURRENCY = 4;
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

async function ingestAll(server: Server, key: string, docs: readonly CorpusDocument[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < docs.length) {
        const doc = docs[next++]!;
        const body = JSON.stringify({ title: doc.title, slug: doc.slug, content: doc.content, namespace: 'tech_docs' });
        const res = await send(agent, `${server.url}/api/v1/ingest/md`, 'POST', { authorization: `Bearer ${key}` }, body);
        if (res.status !== 200 && res.status !== 201) throw new Error(`ingest answered ${res.status}: ${res.body}`);
      }
    }),
  );
}

/** CPU milliseconds (user + system) a process has used so far (0 once it is gone). */
function cpuMs(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  const fields = stat.split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms
}

/** The store's backends serving other clients than this one (the server's pool), by pid. */
async function serverBackends(client: pg.Client): Promise<number[]> {
  const { rows } = await client.query(`select pid from pg_stat_activity
    where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`);
  return rows.map((r: { pid: number }) => r.pid);
}

const corpus = await loadCorpus(values.corpus);
const scratch = await createEmptyPostgresDatabase();
const profileDir = values['profile-dir'];
const service = await startServer({ DATABASE_URL: scratch.url }, undefined, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
const client = new pg.Client({ connectionString: scratch.url });
await client.connect();
try {
  const store = await createDatabase({ kind: 'postgres', databaseUrl: scratch.url, poolSize: 1 });
  const { key } = await new ApiKeysService(new ApiKeysRepository(store.db)).create({ label: 'bench-admin', admin: true });
  await store.close();
  const columns = (
    await client.query(`select column_name from information_schema.columns where table_name = 'chunks' and is_generated = 'NEVER' order by ordinal_position`)
  ).rows
    .map((r: { column_name: string }) => `"${r.column_name}"`)
    .join(', ');
  const rows: string[][] = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    await client.query('truncate documents cascade');
    const storeBefore = new Map((await serverBackends(client)).map((pid) => [pid, cpuMs(pid)]));
    const cpuBefore = cpuMs(service.process.pid!);
    const started = performance.now();
    await ingestAll(service, key, corpus);
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuMs(service.process.pid!) - cpuBefore;
    const storeCpu = (await serverBackends(client)).reduce((sum, pid) => sum + cpuMs(pid) - (storeBefore.get(pid) ?? 0), 0);
    const written = Number((await client.query('select count(*) as n from chunks')).rows[0].n);
    await client.query('create table chunks_limit (like chunks including all)');
    const own = Number((await client.query('select pg_backend_pid() as pid')).rows[0].pid);
    const limitCpuBefore = cpuMs(own);
    const copyStarted = performance.now();
    await client.query(`insert into chunks_limit (${columns}) select ${columns} from chunks`);
    const copySeconds = (performance.now() - copyStarted) / 1000;
    const limitCpu = cpuMs(own) - limitCpuBefore;
    await client.query('drop table chunks_limit');
    const figure = written / seconds;
    const limit = written / copySeconds;
    const perChunk = (ms: number) => `${(ms / written).toFixed(2)} ms`;
    rows.push([
      `round ${round}`,
      `${written}`,
      `${figure.toFixed(0)} chunks/s`,
      `${limit.toFixed(0)} chunks/s`,
      `${(figure / limit).toFixed(2)}x`,
      perChunk(cpu),
      perChunk(storeCpu),
      perChunk(limitCpu),
      `${(limitCpu / (cpu + storeCpu)).toFixed(2)}x`,
    ]);
  }
  const head = [
    '',
    'chunks',
    `the service, ${CONCURRENCY} concurrent POST /ingest/md`,
    'its limit, INSERT ... SELECT',
    'ratio (target >= 0.7x)',
    'CPU a chunk: server',
    'its store',
    'the limit',
    'CPU ratio',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  console.log(`Ingestion over HTTP into an empty PostgreSQL store, ${corpus.length} Hugo pages`);
  for (const r of [head, ...rows]) console.log('  ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
} finally {
  await client.end();
  await stopServer(service);
  await scratch.drop();
  agent.destroy();
}
