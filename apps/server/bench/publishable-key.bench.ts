/**
 * What a publishable key's checks cost a search: the same semantic searches over HTTP through a
 * publishable key (its origin, its scope, the visitor's budgets counted) and through a secret key
 * without limits, interleaved in one run against one server, p50 and p95 side by side. The
 * limit is the secret key's figure.
 *
 * The server runs as `pnpm start` runs it (compiled, a process of its own, the embedded store in
 * a fresh folder: `pnpm build` first); its first admin key comes from its first start.
 *
 *   pnpm --filter @kb/server exec tsx bench/publishable-key.bench.ts [--requests=400]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, waitFor } from '../test/processes.ts';
import { loadCorpus } from './answer-quality.ts';
import questions from './hugo-questions.json' with { type: 'json' };
import { percentile, send } from './http.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '400' },
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/markdown-docs/hugo-docs') },
  },
});
const requests = Number(values.requests);
const ORIGIN = 'https://docs.example.com';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const call = (url: string, method: string, headers: Record<string, string>, body?: string) => send(agent, url, method, headers, body);

const main = join(import.meta.dirname, '../dist/main.js');
if (!existsSync(main)) throw new Error('Run `pnpm build` first: the benchmark runs the compiled server.');
const dataDir = await mkdtemp(join(tmpdir(), 'kb-bench-publishable-'));
const port = await freePort();
const child = spawn(process.execPath, ['--conditions=production', '--max-semi-space-size=32', main], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', KB_QUERY_LOG_DAYS: '0', KB_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' },
  stdio: ['ignore', 'inherit', 'pipe'],
});
let stderr = '';
child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
const url = `http://127.0.0.1:${port}`;
try {
  await waitFor(`${url}/readyz`, 120_000);
  const admin = /\b(kb_[0-9A-Za-z]{40})\b/.exec(stderr)?.[1];
  if (!admin) throw new Error(`the new store showed no first admin key:\n${stderr}`);
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  const corpus = await loadCorpus(values.corpus);
  for (const doc of corpus) {
    const res = await call(`${url}/api/v1/ingest/md`, 'POST', auth(admin), JSON.stringify({ title: doc.title, slug: doc.slug, content: doc.content, namespace: 'user_docs' }));
    if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${res.body}`);
  }
  const create = async (fields: Record<string, unknown>) => {
    const res = await call(`${url}/api/v1/keys`, 'POST', auth(admin), JSON.stringify(fields));
    if (res.status !== 201) throw new Error(`key creation answered ${res.status}: ${res.body}`);
    return (JSON.parse(res.body) as { key: string }).key;
  };
  const secret = await create({ label: 'server' });
  // Budgets high enough never to refuse, so that each search is counted as a visitor's question.
  const publishable = await create({
    label: 'docs site',
    kind: 'publishable',
    namespaces: ['user_docs'],
    allowedOrigins: [ORIGIN],
    visitorRateLimitRpm: 1_000_000_000,
    visitorRateLimitRpd: 1_000_000_000,
  });

  const search = async (key: string, headers: Record<string, string>, query: string) => {
    const started = performance.now();
    const res = await call(`${url}/api/v1/search`, 'POST', { ...auth(key), ...headers }, JSON.stringify({ query, topK: 10 }));
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`search answered ${res.status}: ${res.body}`);
    return ms;
  };
  const times = { secret: [] as number[], publishable: [] as number[] };
  for (let i = 0; i < requests + 50; i++) {
    const query = questions[i % questions.length]!.question;
    // Interleaved, each kind first in turn, so that drift in the machine's speed falls on both.
    const order = i % 2 === 0 ? (['secret', 'publishable'] as const) : (['publishable', 'secret'] as const);
    for (const kind of order) {
      const ms = kind === 'secret' ? await search(secret, {}, query) : await search(publishable, { origin: ORIGIN }, query);
      if (i >= 50) times[kind].push(ms);
    }
  }
  const row = (what: string, p: number) => {
    const service = percentile(times.publishable, p);
    const limit = percentile(times.secret, p);
    return [what, `${service.toFixed(2)} ms`, `${limit.toFixed(2)} ms`, `${(service / limit).toFixed(3)}x`];
  };
  console.log(`\nSearch through a publishable key against a secret key: embedded store, ${corpus.length} Hugo pages, ${requests} searches each, interleaved`);
  const rows = [['', 'publishable key', 'secret key (limit), same run', 'ratio'], row('p50', 50), row('p95', 95)];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) console.log('  ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  console.log('  target: p50 at most 1.05x');
} finally {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  await rm(dataDir, { recursive: true, force: true });
}
