import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedEmbeddedStore } from '@kb/db/testing';
import { startFakeClaude } from '../test-faults/fake-claude.ts';
import { parseMetrics, sumOf, type Sample } from './metrics-scrape.ts';
import { exited, freePort, repoRoot, waitFor } from './processes.ts';
import { postAndDisconnect, readStream } from './sse.ts';

// Metrics and traces together, as an operator turns both on: the compiled server with
// OTEL_EXPORTER_OTLP_ENDPOINT set (tracing's module loader hook installed) and KB_METRICS on.

const built = existsSync(join(repoRoot, 'apps/server/dist/main.js'));
if (!built) throw new Error('These tests run the compiled server: run `pnpm build` first (`pnpm test` does)');

const TOKEN = 'metrics-and-traces-token-0123';
const PAGE = '# Deploy\n\n## Netlify\n\nConnect the repository in the Netlify dashboard; Netlify builds the site on every push.\n\n## Pages\n\nUse the workflow to publish the site.\n';

/** An OTLP/HTTP collector on loopback: keeps what each export posted. */
async function startCollector(): Promise<{ url: string; exports: string[]; close(): Promise<void> }> {
  const exports: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      exports.push(`${req.url} ${Buffer.concat(chunks).toString('utf8')}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('metrics with tracing on: the compiled server exporting spans over OTLP/HTTP', () => {
  let dataDir: string;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let claude: Awaited<ReturnType<typeof startFakeClaude>>;
  let server: ChildProcess;
  let output = '';
  let url: string;
  let adminKey: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kb-metrics-tracing-'));
    await seedEmbeddedStore(dataDir);
    collector = await startCollector();
    claude = await startFakeClaude();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['--conditions=production', 'apps/server/dist/main.js'], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        KB_DATA_DIR: dataDir,
        KB_METRICS: 'true',
        KB_METRICS_TOKEN: TOKEN,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'kb-metrics-traces',
        ANTHROPIC_API_KEY: 'sk-ant-test-key',
        ANTHROPIC_BASE_URL: claude.url,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk) => (output += chunk));
    server.stderr!.on('data', (chunk) => (output += chunk));
    await waitFor(`${url}/readyz`, 180_000).catch((error: unknown) => {
      throw new Error(`${String(error)}; the server wrote:\n${output}`);
    });
    // The first admin key of a new store is shown once, on the terminal, once the store is ready.
    const deadline = Date.now() + 30_000;
    while (!/^\s+kb_\S+$/m.test(output) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const key = /^\s+(kb_\S+)$/m.exec(output)?.[1];
    if (!key) throw new Error(`no first admin key in the output:\n${output}`);
    adminKey = key;
  }, 240_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await exited(server);
    }
    await claude?.close();
    await collector?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const scrape = async (): Promise<Sample[]> => {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return parseMetrics(await res.text());
  };
  const post = (path: string, body: unknown, key = adminKey) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('counts requests, searches, ingestion, the FAQ cache, rate-limit refusals and aborted answers, and exports the spans', async () => {
    const before = await scrape();

    // Ingestion, then a search.
    expect((await post('/api/v1/ingest/md', { title: 'Deploy', slug: 'deploy', namespace: 'user_docs', content: PAGE })).status).toBe(200);
    const search = await post('/api/v1/search', { query: 'netlify repository' });
    expect(search.status).toBe(200);
    expect(((await search.json()) as { count: number }).count).toBeGreaterThan(0);

    // The public FAQ on one topic twice: generated once (a miss), then served from the cache.
    expect((await fetch(`${url}/api/v1/faq?q=netlify&source=user_docs`)).status).toBe(200);
    expect((await fetch(`${url}/api/v1/faq?q=netlify&source=user_docs`)).status).toBe(200);

    // A streamed answer the client leaves after its first chunk (the fake model streams slowly).
    const left = await postAndDisconnect(url, '/api/v1/chat', { authorization: `Bearer ${adminKey}` }, { message: 'How do I deploy to Netlify?' }, (raw) => raw.includes('"type":"chunk"'));
    expect(left).toContain('"type":"chunk"');
    // And one read to the end, so the answer counter is seen beside the aborted one.
    const chat = await readStream(await post('/api/v1/chat', { message: 'How do I publish the site?' }));
    expect(chat.done).toBe(true);

    // A key allowed one request a minute, used twice.
    const created = await post('/api/v1/keys', { label: 'one a minute', rateLimitRpm: 1 });
    expect(created.status).toBe(201);
    const limited = ((await created.json()) as { key: string }).key;
    expect((await post('/api/v1/search', { query: 'netlify' }, limited)).status).toBe(200);
    expect((await post('/api/v1/search', { query: 'netlify' }, limited)).status).toBe(429);

    let after: Sample[] = before;
    const moved = (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels) - sumOf(before, name, labels);
    // The aborted answer is counted once the server has seen the socket close.
    await expect
      .poll(async () => {
        after = await scrape();
        return moved('kb_chat_aborted_total');
      })
      .toBe(1);

    expect(moved('kb_http_requests_total', { route: '/api/v1/search', method: 'POST', status: '200' })).toBe(2);
    expect(moved('kb_http_requests_total', { route: '/api/v1/search', method: 'POST', status: '429' })).toBe(1);
    expect(moved('kb_http_requests_total', { route: '/api/v1/ingest/md', method: 'POST', status: '200' })).toBe(1);
    expect(moved('kb_http_requests_total', { route: '/api/v1/faq', method: 'GET', status: '200' })).toBe(2);
    expect(moved('kb_http_request_duration_seconds_count', { route: '/api/v1/search' })).toBe(3);
    expect(moved('kb_search_duration_seconds_count')).toBe(2);
    expect(moved('kb_ingest_documents_total', { method: 'markdown', outcome: 'created' })).toBe(1);
    expect(moved('kb_faq_cache_total', { result: 'miss' })).toBe(1);
    expect(moved('kb_faq_cache_total', { result: 'hit' })).toBe(1);
    expect(moved('kb_rate_limit_refusals_total', { limit: 'per-minute' })).toBe(1);
    expect(moved('kb_chat_answers_total')).toBe(1);

    // The same traffic reached the collector as spans (exported in batches: poll).
    const spanNames = ['POST /api/v1/ingest/md', 'POST /api/v1/search', 'GET /api/v1/faq', 'POST /api/v1/chat'];
    const exportedNames = () => spanNames.filter((name) => collector.exports.some((body) => body.includes(`"name":${JSON.stringify(name)}`)));
    await expect.poll(exportedNames, { timeout: 30_000 }).toEqual(spanNames);
    expect(collector.exports.every((body) => body.startsWith('/v1/traces '))).toBe(true);
    expect(collector.exports.join('\n')).toContain('kb-metrics-traces');
  }, 240_000);
});
