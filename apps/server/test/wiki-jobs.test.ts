import { testStoreKinds } from '@kb/db/testing';
import { generateSpace, startFakeConfluence, type FakeConfluence } from '@kb/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { securitySuite } from './security.ts';

const kinds = await testStoreKinds();

describe('wiki import without the WIKI_* variables', () => {
  let service: TestService;
  afterEach(async () => {
    await service.close();
  });

  it('answers 503 naming the missing variables', async () => {
    service = await startTestService('pglite', { env: { WIKI_BASE_URL: 'https://acme.atlassian.net' } });
    const { key } = await service.createKey();
    const res = await service.api('/api/v1/ingest/wiki', { method: 'POST', key, json: { spaceKey: 'ENG', namespace: 'wiki' } });
    expect(res.status).toBe(503);
    const body = await json(res);
    expect(body.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.message).toContain('WIKI_EMAIL');
    expect(body.message).toContain('WIKI_API_TOKEN');
    expect(body.message).not.toContain('WIKI_BASE_URL');
    const jobs = await json(await service.api('/api/v1/ingest/jobs', { key: (await service.createKey({ admin: true })).key }));
    expect(jobs.jobs).toEqual([]);
  });
});

describe.each(kinds)('wiki import jobs over HTTP, embedded job runner, %s', (kind) => {
  let fake: FakeConfluence;
  let service: TestService;
  let key: string;
  let adminKey: string;

  beforeAll(async () => {
    fake = await startFakeConfluence({ spaces: [generateSpace({ key: 'OPS', pages: 60, pageBytes: 4_000, seed: 7 })] });
    service = await startTestService(kind, {
      env: { WIKI_BASE_URL: fake.url, WIKI_EMAIL: fake.email, WIKI_API_TOKEN: fake.apiToken },
    });
    key = (await service.createKey()).key;
    adminKey = (await service.createKey({ admin: true })).key;
  });
  afterAll(async () => {
    await service?.close();
    await fake?.close();
  });

  const post = (body: unknown, k: string | null = key) =>
    service.api('/api/v1/ingest/wiki', { method: 'POST', json: body, ...(k === null ? {} : { key: k }) });
  const listJobs = async () => (await json(await service.api('/api/v1/ingest/jobs', { key: adminKey }))).jobs;
  const waitForJob = async (jobId: string) => {
    let job: { status: string } | undefined;
    await expect
      .poll(
        async () => {
          job = (await listJobs()).find((j: { id: string }) => j.id === jobId);
          return job?.status;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toMatch(/^(done|failed)$/);
    return job as never;
  };

  it('validates the request', async () => {
    expect((await post({ spaceKey: 'OPS', namespace: 'wiki' }, null)).status).toBe(401);
    for (const [body, field] of [
      [{ namespace: 'wiki' }, 'spaceKey'],
      [{ spaceKey: '', namespace: 'wiki' }, 'spaceKey'],
      [{ spaceKey: 'has space', namespace: 'wiki' }, 'spaceKey'],
      [{ spaceKey: 42, namespace: 'wiki' }, 'spaceKey'],
      [{ spaceKey: 'OPS' }, 'namespace'],
      [{ spaceKey: 'OPS', namespace: 'elsewhere' }, 'namespace'],
    ] as const) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(await json(res))).toContain(field);
    }
  });

  it('lists jobs to admins only', async () => {
    expect((await service.api('/api/v1/ingest/jobs')).status).toBe(401);
    expect((await service.api('/api/v1/ingest/jobs', { key })).status).toBe(403);
    expect((await service.api('/api/v1/ingest/jobs', { key: adminKey })).status).toBe(200);
  });

  it('accepts an import with 202, runs it to done, and skips every page the second time', async () => {
    const res = await post({ spaceKey: 'OPS', namespace: 'wiki' });
    expect(res.status).toBe(202);
    const accepted = await json(res);
    expect(accepted).toEqual({ jobId: expect.any(String), status: 'pending' });

    const job = await waitForJob(accepted.jobId);
    expect(job).toMatchObject({
      id: accepted.jobId,
      type: 'wiki',
      status: 'done',
      payload: { spaceKey: 'OPS', namespace: 'wiki' },
      attempts: 1,
      progress: { total: 60, done: 60, skipped: 0, failed: 0 },
      createdAt: expect.any(String),
      startedAt: expect.any(String),
      completedAt: expect.any(String),
    });
    expect(job).not.toHaveProperty('error');

    const search = await json(
      await service.api('/api/v1/search', { method: 'POST', key, json: { query: (fake.spaces.get('OPS')!.pages[5]!.title), source: 'wiki', topK: 3 } }),
    );
    expect(search.results.length).toBeGreaterThan(0);

    const again = await json(await post({ spaceKey: 'OPS', namespace: 'wiki' }));
    expect(await waitForJob(again.jobId)).toMatchObject({ status: 'done', progress: { total: 60, done: 0, skipped: 60, failed: 0 } });

    const jobs = await listJobs();
    expect(jobs[0].id).toBe(again.jobId); // newest first
    expect(JSON.stringify(jobs)).not.toContain(fake.apiToken);
  });

  it('fails a job for an unknown space with an error naming it', async () => {
    const accepted = await json(await post({ spaceKey: 'GHOST', namespace: 'wiki' }));
    const job = await waitForJob(accepted.jobId);
    expect(job).toMatchObject({ status: 'failed' });
    expect((job as { error: string }).error).toContain('GHOST');
  });

  describe('security', () => {
    securitySuite(() => service, [
      { procedure: 'ingest.wiki', json: { spaceKey: 'OPS', namespace: 'wiki' } },
      { procedure: 'ingest.jobs' },
    ]);
  });
});
