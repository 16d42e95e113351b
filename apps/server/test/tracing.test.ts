import { loadConfig } from '@kb/config';
import { createLogger, useTracing } from '@kb/core';
import { generateSpace, startFakeConfluence, type FakeConfluence } from '@kb/core/testing';
import { isPostgresAvailable, TEST_REDIS_URL } from '@kb/db/testing';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installTracing, type Tracing } from '../src/tracing.ts';
import { startWorker, type RunningWorker } from '../src/worker.ts';
import { json, startTestService, type TestService } from './helpers.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmptyPostgresDatabase } from '@kb/db/testing';
import { freePort, run, stopAll, testQueuePrefix, waitFor } from './processes.ts';

const available = await isPostgresAvailable();

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe.runIf(available)('traces: one trace from an HTTP request through the job it starts to the worker that runs it', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let fake: FakeConfluence;
  let service: TestService;
  let worker: RunningWorker;
  let key: string;

  beforeAll(async () => {
    tracing = installTracing({ serviceName: 'kb-test', process: 'test' }, new SimpleSpanProcessor(exporter));
    fake = await startFakeConfluence({ spaces: [generateSpace({ key: 'OPS', pages: 3, pageBytes: 1_000, seed: 9 })] });
    const env = {
      // Turns spans on; the exporter is the in-memory one installed above.
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      KB_QUEUE_PREFIX: testQueuePrefix(),
      WIKI_BASE_URL: fake.url,
      WIKI_EMAIL: fake.email,
      WIKI_API_TOKEN: fake.apiToken,
    };
    service = await startTestService('postgres', { redis: true, env });
    worker = await startWorker(loadConfig({ ...env, REDIS_URL: TEST_REDIS_URL, LOG_LEVEL: 'silent' }), {
      database: service.services.database,
      logger: createLogger({ level: 'silent' }),
    });
    key = (await service.createKey({ admin: true })).key;
  }, 90_000);

  afterAll(async () => {
    await worker?.stop();
    await service?.close();
    await fake?.close();
    await tracing?.shutdown();
    useTracing(false);
  });

  it('links the request span, the job span in the worker and its ingestion spans, with the request id on both sides', async () => {
    const res = await service.api('/api/v1/ingest/wiki', {
      method: 'POST',
      key,
      headers: { 'x-request-id': 'trace-req-1' },
      json: { spaceKey: 'OPS', namespace: 'wiki' },
    });
    expect(res.status).toBe(202);
    const { jobId } = await json(res);
    await expect
      .poll(async () => (await json(await service.api('/api/v1/ingest/jobs', { key }))).jobs.find((j: { id: string }) => j.id === jobId)?.status, { timeout: 60_000 })
      .toBe('done');

    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.name === 'POST /api/v1/ingest/wiki');
    expect(request, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(request!.attributes).toMatchObject({ 'kb.request_id': 'trace-req-1', 'http.route': '/api/v1/ingest/wiki', 'http.response.status_code': 202 });
    const job = spans.find((s) => s.name === 'job' && s.attributes['kb.job.id'] === jobId);
    expect(job).toBeDefined();
    // Same trace, the job hanging under the request that queued it (through BullMQ's job data).
    expect(job!.spanContext().traceId).toBe(request!.spanContext().traceId);
    expect(parentOf(job!)).toBe(request!.spanContext().spanId);
    expect(job!.attributes).toMatchObject({ 'kb.request_id': 'trace-req-1', 'kb.job.outcome': 'done' });
    // The worker's ingestion work is in the job's trace.
    const batches = spans.filter((s) => s.name === 'ingest batch' && s.spanContext().traceId === job!.spanContext().traceId);
    expect(batches.length).toBeGreaterThan(0);
    for (const batch of batches) expect(batch.attributes['kb.ingest.method']).toBe('wiki');
    // Redis commands (the ioredis instrumentation) in the request's trace: BullMQ adding the job.
    const redis = spans.filter((s) => s.name === 'evalsha' && s.spanContext().traceId === request!.spanContext().traceId);
    expect(redis.length, JSON.stringify(spans.find((s) => s.name === 'evalsha')?.attributes)).toBeGreaterThan(0);
  }, 120_000);

  it('puts a search under its request, and continues a caller trace given in traceparent', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await service.api('/api/v1/search', {
      method: 'POST',
      key,
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      json: { query: 'anything at all' },
    });
    expect(res.status).toBe(200);
    await expect.poll(() => exporter.getFinishedSpans().some((s) => s.name === 'POST /api/v1/search')).toBe(true);
    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.name === 'POST /api/v1/search')!;
    expect(request.spanContext().traceId).toBe(traceId);
    expect(parentOf(request)).toBe('00f067aa0ba902b7');
    const search = spans.find((s) => s.name === 'search' && s.spanContext().traceId === traceId);
    expect(search).toBeDefined();
    expect(parentOf(search!)).toBe(request.spanContext().spanId);
  });
});

describe.runIf(available)('traces from `pnpm start`, exported over OTLP/HTTP', () => {
  it('sends the request span with the PostgreSQL query spans under it (the pg instrumentation patches the client as it loads)', async () => {
    const bodies: string[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        bodies.push(`${req.url} ${body}`);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', () => resolve()));
    const database = await createEmptyPostgresDatabase();
    const port = await freePort();
    const server = run(['apps/server/src/main.ts'], {
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      OTEL_SERVICE_NAME: 'kb-otlp-test',
    });
    try {
      await waitFor(`http://127.0.0.1:${port}/readyz`, 90_000);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { 'x-request-id': 'otlp-ready-1' } })).status).toBe(200);
    } finally {
      // A graceful stop exports the spans still buffered.
      await stopAll([server]);
      await database.drop();
      collector.close();
    }
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.every((b) => b.startsWith('/v1/traces '))).toBe(true);
    const exported = bodies.join('\n');
    expect(exported).toContain('kb-otlp-test');
    expect(exported).toContain('otlp-ready-1');
    expect(exported).toMatch(/"name":"GET \/readyz"/);
    expect(exported).toMatch(/"name":"pg\.query:SELECT/);
  }, 120_000);
});
