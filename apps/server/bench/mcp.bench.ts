/**
 * What MCP costs a search: the same semantic searches (top 10) as MCP `search` tool calls on
 * /mcp (stateless Streamable HTTP, one POST each, as an agent's client sends them after
 * initializing) and as REST searches on /api/v1/search, through the same secret key, interleaved
 * in one run against one server; p50 and p95 side by side. The limit is the REST figure.
 *
 * The server runs from its sources (tsx), a process of its own, the embedded store in a fresh
 * folder; its first admin key comes from its first start.
 *
 *   pnpm --filter @kb/server exec tsx bench/mcp.bench.ts [--requests=200] [--docs=300]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, run, waitFor } from '../test/processes.ts';
import { loadCorpus } from './answer-quality.ts';
import questions from './hugo-questions.json' with { type: 'json' };
import { percentile, send } from './http.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '200' },
    docs: { type: 'string', default: '300' },
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/markdown-docs/hugo-docs') },
  },
});
const requests = Number(values.requests);

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const call = (url: string, headers: Record<string, string>, body: string) => send(agent, url, 'POST', headers, body);

const dataDir = await mkdtemp(join(tmpdir(), 'kb-bench-mcp-'));
const port = await freePort();
const child = run([join(import.meta.dirname, '../src/main.ts')], { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', KB_QUERY_LOG_DAYS: '0', KB_DATA_DIR: dataDir });
let stderr = '';
// The first start's admin key is shown on the terminal, on either stream.
child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
child.stdout!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
const url = `http://127.0.0.1:${port}`;
try {
  await waitFor(`${url}/readyz`, 180_000);
  // The key may reach this process's pipe just after the server answers.
  for (let i = 0; i < 100 && !/\bkb_[0-9A-Za-z]{40}\b/.test(stderr); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  const admin = /\b(kb_[0-9A-Za-z]{40})\b/.exec(stderr)?.[1];
  if (!admin) throw new Error(`the new store showed no first admin key:\n${stderr}`);
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  const corpus = (await loadCorpus(values.corpus)).slice(0, Number(values.docs));
  for (const doc of corpus) {
    const res = await call(`${url}/api/v1/ingest/md`, auth(admin), JSON.stringify({ title: doc.title, slug: doc.slug, content: doc.content, namespace: 'user_docs' }));
    if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${res.body}`);
  }
  const created = await call(`${url}/api/v1/keys`, auth(admin), JSON.stringify({ label: 'agent' }));
  const key = (JSON.parse(created.body) as { key: string }).key;
  const mcpHeaders = { ...auth(key), accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

  let id = 0;
  const searches = {
    rest: async (query: string) => {
      const res = await call(`${url}/api/v1/search`, auth(key), JSON.stringify({ query, topK: 10 }));
      if (res.status !== 200) throw new Error(`REST search answered ${res.status}: ${res.body}`);
      return (JSON.parse(res.body) as { count: number }).count;
    },
    mcp: async (query: string) => {
      const res = await call(`${url}/mcp`, mcpHeaders, JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'search', arguments: { query, topK: 10 } } }));
      const body = JSON.parse(res.body) as { result?: { isError?: boolean; structuredContent?: { count: number } } };
      if (res.status !== 200 || !body.result || body.result.isError) throw new Error(`MCP search answered ${res.status}: ${res.body.slice(0, 500)}`);
      return body.result.structuredContent!.count;
    },
  };
  const times = { rest: [] as number[], mcp: [] as number[] };
  for (let i = 0; i < requests + 30; i++) {
    const query = questions[i % questions.length]!.question;
    // Interleaved, each first in turn, so that drift in the machine's speed falls on both.
    const order = i % 2 === 0 ? (['rest', 'mcp'] as const) : (['mcp', 'rest'] as const);
    const counts: number[] = [];
    for (const kind of order) {
      const started = performance.now();
      counts.push(await searches[kind](query));
      if (i >= 30) times[kind].push(performance.now() - started);
    }
    if (counts[0] !== counts[1]) throw new Error(`MCP and REST found different numbers of passages for ${JSON.stringify(query)}: ${counts.join(' vs ')}`);
  }
  const row = (what: string, p: number) => {
    const service = percentile(times.mcp, p);
    const limit = percentile(times.rest, p);
    return [what, `${service.toFixed(2)} ms`, `${limit.toFixed(2)} ms`, `${(service / limit).toFixed(3)}x`];
  };
  console.log(`\nMCP search against REST search: embedded store, ${corpus.length} Hugo pages, ${requests} searches each (top 10, semantic), interleaved`);
  const rows = [['', 'MCP tools/call search', 'REST /api/v1/search (limit), same run', 'ratio'], row('p50', 50), row('p95', 95)];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) console.log('  ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  console.log('  target: p50 at most 1.3x');
} finally {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  await rm(dataDir, { recursive: true, force: true });
}
