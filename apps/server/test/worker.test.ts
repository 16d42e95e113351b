import type { ChildProcess } from 'node:child_process';
import { generateSpace, startFakeConfluence, type FakeConfluence } from '@kb/core/testing';
import { createDatabase, type Database } from '@kb/db';
import { createEmptyPostgresDatabase, isPostgresAvailable, TEST_REDIS_URL } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropRedisKeys, exited, freePort, run, runToEnd, stopAll, testQueuePrefix, waitFor } from './processes.ts';

const available = await isPostgresAvailable();
const PAGES = 400;

interface Worker {
  process: ChildProcess;
  output: string;
}

describe.runIf(available)('services mode: wiki imports run by `pnpm worker` processes', () => {
  let fake: FakeConfluence;
  let database: { url: string; drop(): Promise<void> };
  let store: Database;
  let env: Record<string, string>;
  let server: ChildProcess;
  let url: string;
  let adminKey: string;
  const workers: Worker[] = [];

  const startWorker = (): Worker => {
    const worker: Worker = { process: run(['apps/server/src/worker-main.ts'], env), output: '' };
    worker.process.stdout!.on('data', (chunk) => (worker.output += chunk));
    worker.process.stderr!.on('data', (chunk) => (worker.output += chunk));
    workers.push(worker);
    return worker;
  };
  const api = (path: string, body?: unknown) =>
    fetch(`${url}/api/v1${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const job = async (id: string): Promise<any> => ((await (await api('/ingest/jobs')).json()) as { jobs: Array<{ id: string }> }).jobs.find((j) => j.id === id);
  const workerRunning = (jobId: string) => workers.find((w) => w.process.exitCode === null && w.output.includes(jobId) && w.output.includes('job started'));

  beforeAll(async () => {
    fake = await startFakeConfluence({
      spaces: [generateSpace({ key: 'BIG', pages: PAGES, pageBytes: 6_000, seed: 1 }), generateSpace({ key: 'MORE', pages: PAGES, pageBytes: 6_000, seed: 2 })],
    });
    // Slow listings, so that an import is still running when a worker is stopped.
    fake.fault((path) => path.includes('/pages'), { delayMs: 1_200 }, 10_000);
    database = await createEmptyPostgresDatabase();
    env = {
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      KB_QUEUE_PREFIX: testQueuePrefix(),
      // Renewed every 10 s: a running worker's lock does not lapse on a busy machine, so only a
      // killed worker's job is taken over (after at most 30 s), and a job runs as often as counted.
      KB_JOB_LOCK_MS: '20000',
      KB_SHUTDOWN_GRACE_MS: '0',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      WIKI_BASE_URL: fake.url,
      WIKI_EMAIL: fake.email,
      WIKI_API_TOKEN: fake.apiToken,
    };
    const created = await runToEnd(['packages/cli/src/main.ts', 'keys', 'create', '--label', 'ops', '--admin', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    adminKey = JSON.parse(created.stdout).key;
    const port = await freePort();
    server = run(['apps/server/src/main.ts'], { ...env, PORT: String(port) });
    url = `http://127.0.0.1:${port}`;
    startWorker();
    startWorker();
    await waitFor(`${url}/readyz`, 120_000, server);
    const deadline = Date.now() + 120_000;
    while (!workers.every((w) => w.output.includes('job worker running'))) {
      if (Date.now() > deadline) throw new Error(`workers did not start:\n${workers.map((w) => w.output).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    store = await createDatabase({ kind: 'postgres', databaseUrl: database.url, poolSize: 2 });
  }, 300_000);

  afterAll(async () => {
    await stopAll([server, ...workers.map((w) => w.process)].filter(Boolean));
    await store?.close();
    await database?.drop();
    await fake?.close();
    await dropRedisKeys(env.KB_QUEUE_PREFIX!);
  });

  async function expectImported(spaceKey: string) {
    const counts = await sql<{ documents: number; duplicates: number; orphans: number }>`
      select
        (select count(*)::int from documents where starts_with(slug, ${`wiki:${spaceKey}:`})) as documents,
        (select count(*)::int from (select document_id, ordinal from chunks group by 1, 2 having count(*) > 1) d) as duplicates,
        (select count(*)::int from chunks c where not exists (select 1 from documents d where d.id = c.document_id)) as orphans
    `.execute(store.db);
    expect(counts.rows[0]).toEqual({ documents: PAGES, duplicates: 0, orphans: 0 });
  }

  it('completes an import whose worker is killed mid-way, without duplicates', async () => {
    const res = await api('/ingest/wiki', { spaceKey: 'BIG', namespace: 'wiki' });
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };

    await expect.poll(async () => (await job(jobId))?.progress.done ?? 0, { timeout: 90_000, interval: 50 }).toBeGreaterThan(0);
    const victim = workerRunning(jobId);
    expect(victim, 'a worker logged the job').toBeDefined();
    expect((await job(jobId)).status).toBe('running');
    victim!.process.kill('SIGKILL');
    await exited(victim!.process);

    // The lock lapses, then a stall check finds it: up to 30 s before the import goes on.
    await expect.poll(async () => (await job(jobId))?.status, { timeout: 240_000, interval: 200 }).toBe('done');
    const finished = await job(jobId);
    expect(finished.attempts).toBeGreaterThanOrEqual(2);
    expect(finished.progress).toMatchObject({ total: PAGES, failed: 0 });
    expect(finished.progress.done + finished.progress.skipped).toBe(PAGES);
    await expectImported('BIG');
  }, 420_000);

  it('hands the running job back on SIGTERM; another worker finishes it', async () => {
    startWorker();
    const res = await api('/ingest/wiki', { spaceKey: 'MORE', namespace: 'wiki' });
    const { jobId } = (await res.json()) as { jobId: string };
    await expect.poll(async () => (await job(jobId))?.progress.done ?? 0, { timeout: 90_000, interval: 50 }).toBeGreaterThan(0);
    const stopping = workerRunning(jobId)!;
    stopping.process.kill('SIGTERM');
    expect(await exited(stopping.process)).toBe(0);
    expect(stopping.output).toContain('job handed back at shutdown');

    await expect.poll(async () => (await job(jobId))?.status, { timeout: 120_000, interval: 200 }).toBe('done');
    expect((await job(jobId)).attempts).toBe(2);
    await expectImported('MORE');
    const jobs = ((await (await api('/ingest/jobs')).json()) as { jobs: Array<{ status: string }> }).jobs;
    expect(jobs.some((j) => j.status === 'running' || j.status === 'pending')).toBe(false);
  }, 300_000);

  it('refuses to start without Redis and PostgreSQL', async () => {
    const result = await runToEnd(['apps/server/src/worker-main.ts'], { LOG_LEVEL: 'info' });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/REDIS_URL and DATABASE_URL/);
  });
});
