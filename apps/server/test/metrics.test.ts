import { createHash } from 'node:crypto';
import { generateSpace, startFakeConfluence, type FakeConfluence } from '@kb/core/testing';
import { http, HttpResponse } from 'msw';
import type { SetupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { parseMetrics, sumOf, valueOf, type Sample } from './metrics-scrape.ts';
import { MENUS } from './faq-fixtures.ts';
import { startMockServer } from './msw.ts';
import { postAndDisconnect, readStream } from './sse.ts';

const VOYAGE = 'https://voyage.test/v1';
const ANTHROPIC = 'https://anthropic.test';
const MODEL = 'claude-test-model';
const TOKEN = 'metrics-token-0123456789';
const DIMENSION = 1024;

/** A deterministic vector: each word's hash bumps one dimension, so texts sharing words are close. */
function vectorOf(text: string): number[] {
  const vector = new Array<number>(DIMENSION).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) vector[createHash('sha1').update(word).digest()[0]! % DIMENSION]! += 1;
  vector[0]! += 0.01;
  return vector;
}

function sse(events: Array<Record<string, unknown>>): string {
  return events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}
const usage = { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 3, cache_creation_input_tokens: 2 };
const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage } };
const blockStart = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
const delta = (text: string) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
const end = [
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
  { type: 'message_stop' },
];

const PAGE = '# Deploy\n\n## Netlify\n\nConnect the repository in the Netlify dashboard; Netlify builds the site on every push.\n\n## Pages\n\nUse the workflow to publish the site.\n';

describe('Prometheus metrics after a known workload (embedded mode)', () => {
  let mock: SetupServer;
  let fake: FakeConfluence;
  let service: TestService;
  let adminKey: string;
  const calls = { embed: 0, embedFailed: 0, embedTokens: 0, rerank: 0, messages: 0 };
  let failNextEmbedding = false;
  /** Set while the aborted answer's stream is open: the test ends it. */
  let hang: (() => void) | undefined;

  beforeAll(async () => {
    mock = startMockServer();
    mock.use(
      http.post(`${VOYAGE}/embeddings`, async ({ request }) => {
        const body = (await request.json()) as { input: string[] };
        if (failNextEmbedding) {
          failNextEmbedding = false;
          calls.embedFailed++;
          return HttpResponse.json({ detail: 'bad request' }, { status: 400 });
        }
        calls.embed++;
        calls.embedTokens += body.input.length * 7;
        return HttpResponse.json({
          object: 'list',
          data: body.input.map((text, index) => ({ object: 'embedding', embedding: vectorOf(text), index })),
          model: 'voyage-3.5',
          usage: { total_tokens: body.input.length * 7 },
        });
      }),
      http.post(`${VOYAGE}/rerank`, async ({ request }) => {
        const body = (await request.json()) as { documents: string[] };
        calls.rerank++;
        return HttpResponse.json({ object: 'list', data: body.documents.map((_, index) => ({ index, relevance_score: 1 - index / 100 })), usage: { total_tokens: 11 } });
      }),
      http.post(`${ANTHROPIC}/v1/messages`, async ({ request }) => {
        calls.messages++;
        const body = (await request.json()) as { messages: Array<{ content: Array<{ text?: string }> }> };
        const asked = JSON.stringify(body.messages);
        if (asked.includes('never mind')) {
          // Starts an answer, then holds the stream open until the client has gone.
          return new HttpResponse(
            new ReadableStream<Uint8Array>({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(sse([start, blockStart, delta('Connect')])));
                hang = () => {
                  hang = undefined;
                  try {
                    controller.close();
                  } catch {
                    // Already cancelled by the aborted request.
                  }
                };
              },
            }),
            { headers: { 'content-type': 'text/event-stream' } },
          );
        }
        return new HttpResponse(sse([start, blockStart, delta('Connect the repository '), delta('in Netlify.'), ...end]), { headers: { 'content-type': 'text/event-stream' } });
      }),
    );
    fake = await startFakeConfluence({ spaces: [generateSpace({ key: 'OPS', pages: 4, pageBytes: 1_500, seed: 3 })] });
    service = await startTestService('pglite', {
      env: {
        KB_METRICS: 'true',
        KB_METRICS_TOKEN: TOKEN,
        VOYAGE_API_KEY: 'voyage-test-key',
        VOYAGE_BASE_URL: VOYAGE,
        ANTHROPIC_API_KEY: 'sk-ant-test-key',
        ANTHROPIC_BASE_URL: ANTHROPIC,
        ANTHROPIC_MODEL: MODEL,
        WIKI_BASE_URL: fake.url,
        WIKI_EMAIL: fake.email,
        WIKI_API_TOKEN: fake.apiToken,
      },
    });
    adminKey = (await service.createKey({ admin: true })).key;
  });
  afterAll(async () => {
    hang?.();
    await service?.close();
    await fake?.close();
    mock?.close();
  });

  const scrape = async (): Promise<Sample[]> => {
    const res = await service.api('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(await res.text());
  };

  it('refuses /metrics without its token, and serves it with', async () => {
    const none = await service.api('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await service.api('/metrics', { key: adminKey })).status).toBe(401);
    expect((await service.api('/metrics', { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    const samples = await scrape();
    // Default process metrics, and every series labelled with the process.
    expect(valueOf(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(samples.every((s) => s.labels.process === 'server')).toBe(true);
  });

  it('moves each counter by exactly the work done', async () => {
    const before = await scrape();
    const callsBefore = { ...calls };
    const api = (path: string, body: unknown, key = adminKey) => service.api(path, { method: 'POST', key, json: body });

    // Ingestion: one new document, the same again (skipped).
    expect((await api('/api/v1/ingest/md', { title: 'Deploy', slug: 'deploy', namespace: 'user_docs', content: PAGE })).status).toBe(200);
    expect(await json(await api('/api/v1/ingest/md', { title: 'Deploy', slug: 'deploy', namespace: 'user_docs', content: PAGE }))).toMatchObject({ skipped: true });
    const chunks = Number(
      (await service.services.database.db.selectFrom('chunks').innerJoin('documents', 'documents.id', 'chunks.document_id').where('documents.slug', '=', 'deploy').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n,
    );
    expect(chunks).toBeGreaterThan(0);

    // Searches: two semantic (one of them finds nothing), one hybrid; then one whose embedding call fails.
    expect((await json(await api('/api/v1/search', { query: 'netlify repository' }))).count).toBeGreaterThan(0);
    expect((await json(await api('/api/v1/search', { query: 'netlify repository', source: 'tech_docs' }))).count).toBe(0);
    expect((await api('/api/v1/search', { query: 'publish the site', mode: 'hybrid' })).status).toBe(200);
    failNextEmbedding = true;
    expect((await api('/api/v1/search', { query: 'publish the site' })).status).toBe(503);

    // A streamed chat, read to the end; one the client leaves after the first chunk.
    const chat = await readStream(await api('/api/v1/chat', { message: 'How do I deploy to Netlify?' }));
    expect(chat.done).toBe(true);
    expect(chat.text).toBe('Connect the repository in Netlify.');
    const left = await postAndDisconnect(service.url, '/api/v1/chat', { authorization: `Bearer ${adminKey}` }, { message: 'never mind, deploy?' }, (raw) => raw.includes('"type":"chunk"'));
    expect(left).toContain('"type":"chunk"');
    await expect.poll(async () => valueOf(await scrape(), 'kb_chat_aborted_total', { answerer: 'claude' }) - valueOf(before, 'kb_chat_aborted_total', { answerer: 'claude' })).toBe(1);
    hang?.();

    // A refused request: a key allowed one request a minute, used twice.
    const limited = (await service.createKey({ rateLimitRpm: 1 })).key;
    expect((await api('/api/v1/search', { query: 'netlify' }, limited)).status).toBe(200);
    expect((await api('/api/v1/search', { query: 'netlify' }, limited)).status).toBe(429);

    // A wiki import, run by the in-process queue.
    const { jobId } = await json(await api('/api/v1/ingest/wiki', { spaceKey: 'OPS', namespace: 'wiki' }));
    await expect
      .poll(async () => (await json(await service.api('/api/v1/ingest/jobs', { key: adminKey }))).jobs.find((j: { id: string }) => j.id === jobId)?.status, { timeout: 60_000 })
      .toBe('done');

    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels) - sumOf(before, name, labels);

    expect(moved('kb_ingest_documents_total', { method: 'markdown', outcome: 'created' })).toBe(1);
    expect(moved('kb_ingest_documents_total', { method: 'markdown', outcome: 'skipped' })).toBe(1);
    expect(moved('kb_ingest_chunks_total', { method: 'markdown', outcome: 'created' })).toBe(chunks);
    expect(moved('kb_ingest_documents_total', { method: 'wiki', outcome: 'created' })).toBe(4);
    expect(moved('kb_ingest_documents_total', { outcome: 'failed' })).toBe(0);

    expect(moved('kb_search_duration_seconds_count', { mode: 'semantic' })).toBe(3);
    expect(moved('kb_search_duration_seconds_count', { mode: 'hybrid' })).toBe(1);
    expect(moved('kb_search_empty_total', { mode: 'semantic' })).toBe(1);
    expect(moved('kb_search_empty_total', { mode: 'hybrid' })).toBe(0);

    expect(moved('kb_provider_calls_total', { provider: 'voyage', operation: 'embed', outcome: 'ok' })).toBe(calls.embed - callsBefore.embed);
    expect(moved('kb_provider_calls_total', { provider: 'voyage', operation: 'embed', outcome: 'error' })).toBe(1);
    expect(moved('kb_provider_tokens_total', { provider: 'voyage', operation: 'embed', kind: 'input' })).toBe(calls.embedTokens - callsBefore.embedTokens);
    expect(moved('kb_provider_calls_total', { provider: 'voyage', operation: 'rerank' })).toBe(calls.rerank - callsBefore.rerank);
    expect(moved('kb_provider_retries_total')).toBe(0);
    expect(moved('kb_provider_calls_total', { provider: 'anthropic' })).toBe(calls.messages - callsBefore.messages);
    expect(moved('kb_provider_calls_total', { provider: 'anthropic', operation: 'answer', outcome: 'ok' })).toBe(1);
    expect(moved('kb_provider_calls_total', { provider: 'anthropic', operation: 'answer', outcome: 'aborted' })).toBe(1);
    // Two answers started (10 input, 3 cache read, 2 cache write each); one finished (5 output).
    expect(moved('kb_provider_tokens_total', { provider: 'anthropic', operation: 'answer', kind: 'input' })).toBe(20);
    expect(moved('kb_provider_tokens_total', { provider: 'anthropic', operation: 'answer', kind: 'cache_read' })).toBe(6);
    expect(moved('kb_provider_tokens_total', { provider: 'anthropic', operation: 'answer', kind: 'cache_write' })).toBe(4);
    expect(moved('kb_provider_tokens_total', { provider: 'anthropic', operation: 'answer', kind: 'output' })).toBe(5);

    expect(moved('kb_chat_answers_total', { answerer: 'claude', retrieval: 'standard' })).toBe(1);
    expect(moved('kb_chat_aborted_total', { answerer: 'claude' })).toBe(1);
    expect(moved('kb_chat_time_to_meta_seconds_count', { answerer: 'claude' })).toBe(2);
    expect(moved('kb_chat_time_to_first_chunk_seconds_count', { answerer: 'claude' })).toBe(2);
    expect(valueOf(after, 'kb_sse_streams_open')).toBe(0);

    expect(moved('kb_rate_limit_refusals_total', { limit: 'per-minute' })).toBe(1);
    expect(moved('kb_rate_limit_refusals_total')).toBe(1);

    expect(moved('kb_job_attempts_total', { type: 'wiki', outcome: 'done' })).toBe(1);
    expect(moved('kb_job_attempts_total')).toBe(1);
    expect(moved('kb_jobs', { state: 'done' })).toBe(1);
    expect(valueOf(after, 'kb_job_queue_depth', { queue: 'in-process', state: 'waiting' })).toBe(0);
    expect(valueOf(after, 'kb_job_queue_oldest_waiting_seconds', { queue: 'in-process' })).toBe(0);

    const requests = (route: string, status: string, method = 'POST') => moved('kb_http_requests_total', { route, method, status });
    expect(requests('/api/v1/ingest/md', '200')).toBe(2);
    expect(requests('/api/v1/search', '200')).toBe(4);
    expect(requests('/api/v1/search', '503')).toBe(1);
    expect(requests('/api/v1/search', '429')).toBe(1);
    expect(requests('/api/v1/chat', '200')).toBe(1);
    expect(requests('/api/v1/chat', '499')).toBe(1);
    expect(requests('/api/v1/ingest/wiki', '202')).toBe(1);
    expect(moved('kb_http_request_duration_seconds_count', { route: '/api/v1/search' })).toBe(6);
    // The scrape itself is the one request in flight.
    expect(valueOf(after, 'kb_http_requests_in_flight')).toBe(1);
    // And the scrapes so far are counted by their route.
    expect(moved('kb_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBeGreaterThan(0);
    // The embedded store's vacuum counter is there (its rounds run on their own clock).
    expect(after.some((s) => s.name === 'kb_embedded_vacuum_runs_total')).toBe(true);
  }, 180_000);

  it('adds no series for a flood of unknown paths, and never a raw path or id as a label', async () => {
    await service.api('/no/such/path');
    const before = await scrape();
    for (let i = 0; i < 1_000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => service.api(`/flood/${i + j}/x?q=${i + j}`)));
    }
    const after = await scrape();
    const series = (samples: Sample[]) => new Set(samples.filter((s) => s.name.startsWith('kb_')).map((s) => `${s.name}${JSON.stringify(s.labels)}`));
    const added = [...series(after)].filter((s) => !series(before).has(s));
    expect(added).toEqual([]);
    expect(valueOf(after, 'kb_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }) - valueOf(before, 'kb_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1_000);
    const text = JSON.stringify(after.map((s) => s.labels));
    expect(text).not.toMatch(/flood|no\/such|kb_[a-z0-9]{20,}/);
    // Routes with parameters are named by their template.
    await service.api('/api/v1/keys/3f2a9c1e-0000-4000-8000-000000000000', { method: 'DELETE', key: adminKey });
    const templated = await scrape();
    expect(valueOf(templated, 'kb_http_requests_total', { route: '/api/v1/keys/{id}', method: 'DELETE', status: '404' })).toBe(1);
  }, 120_000);
});

describe('FAQ cache metrics (built-in writer)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('pglite', { env: { KB_METRICS: 'true', KB_METRICS_TOKEN: TOKEN } });
    const key = (await service.createKey({ admin: true })).key;
    await service.api('/api/v1/ingest/md', { method: 'POST', key, json: { title: 'Menus', slug: 'menus', namespace: 'user_docs', content: MENUS } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('counts misses, generations, joins of a generation under way, and hits', async () => {
    const scrape = async () => parseMetrics(await (await service.api('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text());
    const before = await scrape();
    // Three requests for one new topic at once: one generation, the other two join it.
    const first = await Promise.all([1, 2, 3].map(() => service.api('/api/v1/faq?q=menus')));
    expect(first.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await service.api('/api/v1/faq?q=menus')).status).toBe(200);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels) - sumOf(before, name, labels);
    // Four requests, each a hit or a miss; one generation; every other miss joined it (how many of
    // the three concurrent ones arrive while it is under way is the scheduler's choice).
    const misses = moved('kb_faq_cache_total', { result: 'miss' });
    expect(misses).toBeGreaterThanOrEqual(1);
    expect(misses + moved('kb_faq_cache_total', { result: 'hit' })).toBe(4);
    expect(moved('kb_faq_generations_total', { outcome: 'ok' })).toBe(1);
    expect(moved('kb_faq_singleflight_joins_total')).toBe(misses - 1);
    expect(moved('kb_faq_cache_total', { result: 'hit' })).toBeGreaterThanOrEqual(1);
  });
});

describe('metrics on a port of their own', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('pglite', { env: { KB_METRICS: 'true', KB_METRICS_PORT: '0', KB_METRICS_HOST: '127.0.0.1' } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('serves /metrics there only, on the interface asked for', async () => {
    expect(service.metricsPort).toBeGreaterThan(0);
    expect((await service.api('/metrics')).status).toBe(404);
    const res = await fetch(`http://127.0.0.1:${service.metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('kb_http_requests_in_flight');
    expect((await fetch(`http://127.0.0.1:${service.metricsPort}/other`)).status).toBe(404);
  });
});

describe('metrics off (the default)', () => {
  it('serves no /metrics, and refuses to start metrics on the API port without a token', async () => {
    const service = await startTestService('pglite');
    try {
      expect((await service.api('/metrics')).status).toBe(404);
      expect(service.services.metrics).toBeNull();
    } finally {
      await service.close();
    }
    await expect(startTestService('pglite', { env: { KB_METRICS: 'true' } })).rejects.toThrow(/KB_METRICS needs KB_METRICS_TOKEN/);
  });
});
