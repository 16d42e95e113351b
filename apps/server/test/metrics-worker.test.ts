import type { ChildProcess } from 'node:child_process';
import { generateSpace, startFakeConfluence, type FakeConfluence } from '@kb/core/testing';
import { createEmptyPostgresDatabase, isPostgresAvailable, TEST_REDIS_URL } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMetrics, valueOf, type Sample } from './metrics-scrape.ts';
import { dropRedisKeys, freePort, run, runToEnd, stopAll, testQueuePrefix, waitFor } from './processes.ts';

const available = await isPostgresAvailable();

describe.runIf(available)('metrics in services mode: the server and a `pnpm worker` process', () => {
  let fake: FakeConfluence;
  let database: { url: string; drop(): Promise<void> };
  let env: Record<string, string>;
  const children: ChildProcess[] = [];
  let workerOutput = '';
  let url: string;
  let serverMetrics: string;
  let workerMetrics: string;
  let adminKey: string;

  beforeAll(async () => {
    fake = await startFakeConfluence({ spaces: [generateSpace({ key: 'OPS', pages: 6, pageBytes: 1_500, seed: 5 })] });
    database = await createEmptyPostgresDatabase();
    env = {
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      KB_QUEUE_PREFIX: testQueuePrefix(),
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      KB_METRICS: 'true',
      KB_METRICS_HOST: '127.0.0.1',
      WIKI_BASE_URL: fake.url,
      WIKI_EMAIL: fake.email,
      WIKI_API_TOKEN: fake.apiToken,
    };
    const created = await runToEnd(['packages/cli/src/main.ts', 'keys', 'create', '--label', 'ops', '--admin', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    adminKey = JSON.parse(created.stdout).key;
    const [port, metricsPort, workerPort] = [await freePort(), await freePort(), await freePort()];
    url = `http://127.0.0.1:${port}`;
    serverMetrics = `http://127.0.0.1:${metricsPort}/metrics`;
    workerMetrics = `http://127.0.0.1:${workerPort}/metrics`;
    children.push(run(['apps/server/src/main.ts'], { ...env, PORT: String(port), KB_METRICS_PORT: String(metricsPort) }));
    const worker = run(['apps/server/src/worker-main.ts'], { ...env, KB_WORKER_METRICS_PORT: String(workerPort) });
    worker.stdout!.on('data', (chunk) => (workerOutput += chunk));
    children.push(worker);
    await waitFor(`${url}/readyz`);
    await waitFor(workerMetrics);
  }, 300_000);

  afterAll(async () => {
    await stopAll(children);
    await database?.drop();
    await fake?.close();
    if (env?.KB_QUEUE_PREFIX) await dropRedisKeys(env.KB_QUEUE_PREFIX);
  });

  const scrape = async (at: string): Promise<Sample[]> => parseMetrics(await (await fetch(at)).text());

  it("counts a job on the worker that ran it, the queue on both, and carries the request id into the worker's log", async () => {
    const res = await fetch(`${url}/api/v1/ingest/wiki`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json', 'x-request-id': 'ops-import-42' },
      body: JSON.stringify({ spaceKey: 'OPS', namespace: 'wiki' }),
    });
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    await expect
      .poll(async () => valueOf(await scrape(workerMetrics), 'kb_job_attempts_total', { type: 'wiki', outcome: 'done' }), { timeout: 60_000, interval: 250 })
      .toBe(1);

    const worker = await scrape(workerMetrics);
    expect(worker.every((s) => s.labels.process === 'worker')).toBe(true);
    expect(valueOf(worker, 'kb_ingest_documents_total', { method: 'wiki', outcome: 'created' })).toBe(6);
    expect(valueOf(worker, 'kb_jobs', { state: 'done' })).toBe(1);
    expect(valueOf(worker, 'kb_job_queue_depth', { queue: 'bullmq', state: 'waiting' })).toBe(0);
    expect(worker.some((s) => s.name === 'kb_job_queue_oldest_waiting_seconds' && s.labels.queue === 'bullmq')).toBe(true);
    expect(worker.some((s) => s.name === 'kb_db_pool_connections' && s.labels.state === 'in_use')).toBe(true);
    expect(valueOf(worker, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);

    const server = await scrape(serverMetrics);
    expect(valueOf(server, 'kb_http_requests_total', { route: '/api/v1/ingest/wiki', method: 'POST', status: '202' })).toBe(1);
    expect(valueOf(server, 'kb_job_attempts_total')).toBe(0);
    expect(server.some((s) => s.name === 'kb_job_queue_depth' && s.labels.queue === 'bullmq')).toBe(true);

    // The worker's lines about the job name the request that started it.
    const lines = workerOutput
      .split('\n')
      .filter((line) => line.includes(jobId))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['job started', 'job done']));
    for (const line of lines.filter((l) => l.msg === 'job started' || l.msg === 'job done')) expect(line.reqId).toBe('ops-import-42');
  }, 120_000);

  it("serves the worker's metrics on its own port only", async () => {
    expect((await fetch(workerMetrics.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
  });
});
