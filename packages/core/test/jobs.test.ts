import type { JobProgress } from '@kb/db';
import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { InProcessJobQueue } from '../src/jobs/in-process-queue.ts';
import { JobRunner, type JobContext, type JobHandlers } from '../src/jobs/job-runner.ts';
import { JobsRepository, toJobView } from '../src/jobs/jobs.repository.ts';

const kinds = await testStoreKinds();
const logger = createLogger({ level: 'silent' });
const SECRET = 'wiki-token-5e3cr3t-value';

class TransientError extends Error {
  readonly transient = true;
}

type WikiBehaviour = (context: JobContext<'wiki'>) => Promise<JobProgress>;

describe.each(kinds)('background jobs on %s', (kind) => {
  let testDb: TestDatabase;
  let jobs: JobsRepository;
  let behaviour: WikiBehaviour;
  let queue: InProcessJobQueue | undefined;

  const handlers: Partial<JobHandlers> = { wiki: (context) => behaviour(context) };
  const runner = () => new JobRunner(jobs, handlers, logger, { secrets: [SECRET] });
  const newQueue = (options = {}) => {
    queue = new InProcessJobQueue(runner(), jobs, logger, { backoffMs: 5, ...options });
    return queue;
  };
  const payload = { spaceKey: 'DOCS', namespace: 'wiki' };
  const view = async (id: string) => toJobView((await jobs.get(id))!);

  beforeEach(async () => {
    testDb = await createTestDatabase(kind);
    jobs = new JobsRepository(testDb.database.db);
  });

  afterEach(async () => {
    await queue?.close();
    queue = undefined;
    await testDb.drop();
  });

  it('runs a job to done with its progress, attempts and timestamps', async () => {
    behaviour = async (context) => {
      expect(context.payload).toEqual(payload);
      context.progress({ total: 3, done: 1, skipped: 0, failed: 0 });
      return { total: 3, done: 2, skipped: 1, failed: 0 };
    };
    const q = newQueue();
    await q.start();
    const job = await jobs.create('wiki', payload);
    expect(toJobView(job)).toMatchObject({ status: 'pending', attempts: 0, startedAt: null, completedAt: null });
    expect(toJobView(job)).not.toHaveProperty('error');
    await q.enqueue({ id: job.id, type: 'wiki' });
    await q.whenIdle();
    const done = await view(job.id);
    expect(done).toMatchObject({ status: 'done', attempts: 1, progress: { total: 3, done: 2, skipped: 1, failed: 0 }, payload });
    expect(done).not.toHaveProperty('error');
    expect(Date.parse(done.startedAt!)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
    expect(Date.parse(done.completedAt!)).toBeGreaterThanOrEqual(Date.parse(done.startedAt!));
  });

  it('runs jobs one at a time, oldest first', async () => {
    const order: string[] = [];
    let active = 0;
    behaviour = async (context) => {
      active++;
      expect(active).toBe(1);
      order.push(context.payload.spaceKey);
      await new Promise((r) => setTimeout(r, 20));
      active--;
      return { total: 0, done: 0, skipped: 0, failed: 0 };
    };
    const q = newQueue();
    await q.start();
    for (const key of ['A', 'B', 'C']) {
      const job = await jobs.create('wiki', { spaceKey: key, namespace: 'wiki' });
      await q.enqueue({ id: job.id, type: 'wiki' });
    }
    await q.whenIdle();
    expect(order).toEqual(['A', 'B', 'C']);
  });

  it('retries a transient failure with backoff, then succeeds', async () => {
    let calls = 0;
    behaviour = async () => {
      calls++;
      if (calls < 3) throw new TransientError('Confluence answered 503');
      return { total: 1, done: 1, skipped: 0, failed: 0 };
    };
    const q = newQueue({ attempts: 3 });
    await q.start();
    const job = await jobs.create('wiki', payload);
    await q.enqueue({ id: job.id, type: 'wiki' });
    await expect.poll(async () => (await view(job.id)).status, { timeout: 5_000 }).toBe('done');
    expect(calls).toBe(3);
    expect((await view(job.id)).attempts).toBe(3);
  });

  it('fails after the last attempt with the error, secrets removed', async () => {
    behaviour = async () => {
      throw new TransientError(`upstream 500 while using ${SECRET}`);
    };
    const q = newQueue({ attempts: 2 });
    await q.start();
    const job = await jobs.create('wiki', payload);
    await q.enqueue({ id: job.id, type: 'wiki' });
    await expect.poll(async () => (await view(job.id)).status, { timeout: 5_000 }).toBe('failed');
    const failed = await view(job.id);
    expect(failed.attempts).toBe(2);
    expect(failed.error).toBe('upstream 500 while using [redacted]');
    expect(JSON.stringify(failed)).not.toContain(SECRET);
    expect(failed.completedAt).not.toBeNull();
  });

  it('fails at once on a permanent error', async () => {
    let calls = 0;
    behaviour = async () => {
      calls++;
      throw new Error('Wiki space "NOPE" was not found');
    };
    const q = newQueue();
    await q.start();
    const job = await jobs.create('wiki', payload);
    await q.enqueue({ id: job.id, type: 'wiki' });
    await q.whenIdle();
    expect(await view(job.id)).toMatchObject({ status: 'failed', attempts: 1, error: 'Wiki space "NOPE" was not found' });
    expect(calls).toBe(1);
  });

  it('re-validates the stored payload before running', async () => {
    let calls = 0;
    behaviour = async () => {
      calls++;
      return { total: 0, done: 0, skipped: 0, failed: 0 };
    };
    const q = newQueue();
    await q.start();
    const bad = await jobs.create('wiki', { spaceKey: 'has spaces', namespace: 'nowhere' });
    const unknown = await jobs.create('mystery', {});
    await q.enqueue({ id: bad.id, type: 'wiki' });
    await q.enqueue({ id: unknown.id, type: 'wiki' });
    await q.whenIdle();
    expect(calls).toBe(0);
    const badView = await view(bad.id);
    expect(badView.status).toBe('failed');
    expect(badView.error).toMatch(/spaceKey/);
    expect(badView.error).toMatch(/namespace/);
    expect(await view(unknown.id)).toMatchObject({ status: 'failed', error: 'Unknown job type "mystery"' });
  });

  it('hands the running job back at shutdown, and the next start resumes it', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    behaviour = (context) =>
      new Promise((_, reject) => {
        context.progress({ total: 10, done: 4, skipped: 0, failed: 0 });
        started();
        context.signal.addEventListener('abort', () => reject(context.signal.reason as Error), { once: true });
      });
    const first = newQueue();
    await first.start();
    const job = await jobs.create('wiki', payload);
    await first.enqueue({ id: job.id, type: 'wiki' });
    await running;
    await first.close();
    expect(await view(job.id)).toMatchObject({ status: 'pending', attempts: 1, progress: { total: 10, done: 4 } });

    behaviour = async () => ({ total: 10, done: 0, skipped: 10, failed: 0 });
    const second = newQueue();
    await second.start();
    await second.whenIdle();
    expect(await view(job.id)).toMatchObject({ status: 'done', attempts: 2, progress: { total: 10, skipped: 10 } });
  });

  it('resumes at start a job a crash left running', async () => {
    const job = await jobs.create('wiki', payload);
    await jobs.start(job.id); // the crashed process had started it
    behaviour = async () => ({ total: 1, done: 1, skipped: 0, failed: 0 });
    const q = newQueue();
    await q.start();
    await q.whenIdle();
    expect(await view(job.id)).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('ignores a queue entry for a job that already finished', async () => {
    let calls = 0;
    behaviour = async () => {
      calls++;
      return { total: 0, done: 0, skipped: 0, failed: 0 };
    };
    const job = await jobs.create('wiki', payload);
    await jobs.start(job.id);
    await jobs.finish(job.id, { total: 0, done: 0, skipped: 0, failed: 0 });
    const outcome = await runner().run(job.id, { signal: new AbortController().signal, finalAttempt: true });
    expect(outcome.kind).toBe('ignored');
    expect(calls).toBe(0);
  });

  it('lists jobs newest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await jobs.create('wiki', { spaceKey: `S${i}`, namespace: 'wiki' })).id);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect((await jobs.listRecent(2)).map((j) => j.id)).toEqual([ids[2], ids[1]]);
  });
});
