import { loadConfig } from '@kb/config';
import { BullSourceScheduler, createLogger, SOURCE_SCHEDULE_ENTRY, sourceSchedulerId, type BullJobQueue } from '@kb/core';
import { htmlPage, sitemapXml, startFakeSite, type FakeSite } from '@kb/core/testing';
import { isPostgresAvailable, TEST_REDIS_URL } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from '../src/worker.ts';
import { json, startTestService, type TestService } from './helpers.ts';
import { runToEnd } from './processes.ts';
import { securitySuite } from './security.ts';

const SOURCE_ID = '00000000-0000-4000-8000-000000000000';

function serveDocs(site: FakeSite, count: number): void {
  for (let n = 0; n < count; n++) {
    site.routes.set(`/docs/p${n}`, {
      body: htmlPage(`Topic ${n}`, `<p>Topic ${n} covers the ${['quota', 'backup', 'login', 'export'][n % 4]} settings of the service.</p><a href="/docs/p${(n + 1) % count}">Next</a>`),
    });
  }
  site.routes.set('/sitemap.xml', { body: sitemapXml(Array.from({ length: count }, (_, n) => ({ loc: `${site.url}/docs/p${n}` }))), contentType: 'application/xml' });
}

/** Waits for the source's sync to end (a failed one may wait for a retry: its outcome is already recorded). */
async function waitForSync(service: TestService, key: string, id: string) {
  let source: { status: string; lastSync: { status: string; finishedAt: string | null } | null } | undefined;
  await expect
    .poll(
      async () => {
        source = await json(await service.api(`/api/v1/sources/${id}`, { key }));
        const ended = source!.lastSync !== null && source!.lastSync.finishedAt !== null;
        return ended && (source!.status === 'idle' || source!.lastSync!.status === 'failed');
      },
      // A sync of a few loopback pages takes well under a second; the bound is for a busy machine.
      { timeout: 120_000, interval: 100 },
    )
    .toBe(true);
  return source as never as { status: string; lastSync: { status: string; error: string | null; pages: Record<string, number> } };
}

describe('sources over HTTP, embedded job runner', () => {
  let site: FakeSite;
  let service: TestService;
  let adminKey: string;
  let key: string;

  beforeAll(async () => {
    site = await startFakeSite();
    serveDocs(site, 5);
    service = await startTestService('pglite', { env: { KB_ALLOW_PRIVATE_URLS: 'true', KB_SOURCE_MIN_INTERVAL_MS: '0', KB_SOURCE_SCHEDULE_CHECK_SECONDS: '1' } });
    adminKey = (await service.createKey({ admin: true })).key;
    key = (await service.createKey()).key;
  });
  afterAll(async () => {
    await service?.close();
    await site?.close();
  });

  it('adds a docs site, syncs it, lists its documents, and syncs it again for free', async () => {
    const res = await service.api('/api/v1/sources', {
      method: 'POST',
      key: adminKey,
      json: { kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 }, scheduleMinutes: 60 },
    });
    expect(res.status).toBe(201);
    const created = await json(res);
    expect(created).toMatchObject({ kind: 'website', name: 'Docs', scheduleMinutes: 60, nextSyncAt: expect.any(String) });
    expect(['queued', 'syncing', 'idle']).toContain(created.status);
    const synced = await waitForSync(service, adminKey, created.id);
    expect(synced.lastSync).toMatchObject({ status: 'done', error: null, pages: { discovered: 5, updated: 5, failed: 0 } });

    const docs = await json(await service.api(`/api/v1/documents?sourceId=${created.id}`, { key: adminKey }));
    expect(docs.total).toBe(5);
    expect(docs.documents.every((d: { sourceId: string }) => d.sourceId === created.id)).toBe(true);
    expect((await json(await service.api(`/api/v1/documents?sourceId=${SOURCE_ID}`, { key: adminKey }))).total).toBe(0);

    const again = await service.api(`/api/v1/sources/${created.id}/sync`, { method: 'POST', key: adminKey });
    expect(again.status).toBe(202);
    expect(await json(again)).toEqual({ jobId: expect.any(String), status: 'pending' });
    const second = await waitForSync(service, adminKey, created.id);
    expect(second.lastSync.pages).toMatchObject({ unchanged: 5, updated: 0 });

    const listed = await json(await service.api('/api/v1/sources?limit=1', { key: adminKey }));
    expect(listed).toMatchObject({ sources: [{ id: created.id }], take: 1, nextCursor: null });
    const jobs = await json(await service.api('/api/v1/ingest/jobs', { key: adminKey }));
    expect(jobs.jobs.filter((j: { type: string }) => j.type === 'source-sync')).toHaveLength(2);

    const changed = await json(await service.api(`/api/v1/sources/${created.id}`, { method: 'PATCH', key: adminKey, json: { scheduleMinutes: null, name: 'Product docs' } }));
    expect(changed).toMatchObject({ name: 'Product docs', scheduleMinutes: null, nextSyncAt: null });

    const deleted = await service.api(`/api/v1/sources/${created.id}?documents=true`, { method: 'DELETE', key: adminKey });
    expect(await json(deleted)).toEqual({ deleted: true, id: created.id, documentsRemoved: 5 });
    expect((await service.api(`/api/v1/sources/${created.id}`, { key: adminKey })).status).toBe(404);
  });

  it('answers bad input clearly', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ kind: 'website', name: 'x', namespace: 'user_docs', settings: {} }, /startUrl, sitemapUrl or both/],
      [{ kind: 'website', name: 'x', namespace: 'user_docs', settings: { startUrl: 'file:///etc/passwd' } }, /http or https/],
      [{ kind: 'ftp', name: 'x', namespace: 'user_docs', settings: { startUrl: 'https://x.example/' } }, /kind/],
      [{ kind: 'website', name: 'x', namespace: 'nowhere', settings: { startUrl: 'https://x.example/' } }, /namespace/],
      [{ kind: 'website', name: 'x', namespace: 'user_docs', settings: { startUrl: 'https://x.example/' }, scheduleMinutes: 1 }, /scheduleMinutes/],
      [{ kind: 'website', name: 'x', namespace: 'user_docs', settings: { startUrl: 'https://x.example/', unknown: 1 } }, /unknown/],
      [{ kind: 'confluence', name: 'x', namespace: 'wiki', settings: { spaceKey: 'ENG', apiToken: 'secret' } }, /apiToken/],
      [{ kind: 'confluence', name: 'x', namespace: 'wiki', settings: { startUrl: 'https://x.example/' } }, /settings\.spaceKey/],
      // A JSON body carries its own types: nothing is coerced ("false" would have read as true).
      [{ kind: 'website', name: 'x', namespace: 'user_docs', settings: { startUrl: 'https://x.example/' }, sync: 'false' }, /sync: Invalid input: expected boolean/],
      [{ kind: 'website', name: 'x', namespace: 'user_docs', settings: { startUrl: 'https://x.example/' }, sync: [0] }, /sync: Invalid input: expected boolean/],
      [{ kind: 'website', name: 'x', namespace: 'user_docs', settings: { startUrl: 'https://x.example/' }, scheduleMinutes: '60' }, /scheduleMinutes/],
    ];
    for (const [body, message] of cases) {
      const res = await service.api('/api/v1/sources', { method: 'POST', key: adminKey, json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(await json(res))).toMatch(message);
    }
    // A Confluence space needs the server's account (WIKI_*), which this server does not have.
    const confluence = await service.api('/api/v1/sources', { method: 'POST', key: adminKey, json: { kind: 'confluence', name: 'x', namespace: 'wiki', settings: { spaceKey: 'ENG' } } });
    expect(confluence.status).toBe(503);
    expect((await json(confluence)).message).toBe('Confluence sources are not configured on this server: set WIKI_BASE_URL, WIKI_EMAIL, WIKI_API_TOKEN');
    expect((await service.api('/api/v1/sources/not-an-id', { key: adminKey })).status).toBe(404);
    expect((await service.api(`/api/v1/sources/${SOURCE_ID}/sync`, { method: 'POST', key: adminKey })).status).toBe(404);
    expect((await service.api(`/api/v1/sources/${SOURCE_ID}/failures`, { key: adminKey })).status).toBe(404);
  });

  it('syncs a source on its schedule by itself: the server checks due schedules', async () => {
    const created = await json(
      await service.api('/api/v1/sources', {
        method: 'POST',
        key: adminKey,
        json: { kind: 'website', name: 'Scheduled', namespace: 'tech_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 }, scheduleMinutes: 5, sync: false },
      }),
    );
    expect(created).toMatchObject({ status: 'idle', lastSync: null, nextSyncAt: expect.any(String) });
    // Five minutes pass: the stored next sync time is now in the past. Nobody asks for a sync.
    await sql`update sources set next_sync_at = now() - interval '1 second' where id = ${created.id}`.execute(service.services.database.db);
    const synced = await waitForSync(service, adminKey, created.id);
    expect(synced.lastSync).toMatchObject({ status: 'done', pages: { discovered: 5, failed: 0 } });
    const jobs = (await json(await service.api('/api/v1/ingest/jobs', { key: adminKey }))).jobs as Array<{ type: string; payload: { sourceId?: string; trigger?: string } }>;
    expect(jobs.filter((j) => j.type === 'source-sync' && j.payload.sourceId === created.id).map((j) => j.payload.trigger)).toEqual(['schedule']);
    // The next one is due in five minutes again, not at once.
    const after = await json(await service.api(`/api/v1/sources/${created.id}`, { key: adminKey }));
    expect(Date.parse(after.nextSyncAt) - Date.now()).toBeGreaterThan(60_000);
    await service.api(`/api/v1/sources/${created.id}?documents=true`, { method: 'DELETE', key: adminKey });
  });

  it('lists the failures of the last sync, and a site that cannot be reached says so', async () => {
    site.routes.set('/docs/p1', { status: 500, body: 'down', etag: false });
    const created = await json(
      await service.api('/api/v1/sources', { method: 'POST', key: adminKey, json: { kind: 'website', name: 'Flaky', namespace: 'tech_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 } } }),
    );
    const synced = await waitForSync(service, adminKey, created.id);
    expect(synced.lastSync).toMatchObject({ status: 'partial', pages: { failed: 1, updated: 4 } });
    const failures = await json(await service.api(`/api/v1/sources/${created.id}/failures`, { key: adminKey }));
    expect(failures).toEqual({ failures: [{ url: `${site.url}/docs/p1`, reason: 'the server answered 500 Internal Server Error', httpStatus: 500, at: expect.any(String) }], take: 50, nextCursor: null });

    const down = await json(
      await service.api('/api/v1/sources', { method: 'POST', key: adminKey, json: { kind: 'website', name: 'Down', namespace: 'tech_docs', settings: { startUrl: 'http://127.0.0.1:9/docs/' } } }),
    );
    const failed = await waitForSync(service, adminKey, down.id);
    expect(failed.lastSync).toMatchObject({ status: 'failed', error: expect.stringMatching(/^http:\/\/127\.0\.0\.1:9 could not be reached: connection refused/) });
  });

  it('adds, lists and syncs a site from the command line, with progress', async () => {
    serveDocs(site, 5); // every page answers again
    const env = { KB_DATA_DIR: '/nonexistent-kb-cli-test' };
    const add = await runToEnd(
      ['packages/cli/src/main.ts', 'sources', 'add', `${site.url}/sitemap.xml`, '--name', 'CLI docs', '--namespace', 'api_endpoints', '--depth', '0', '--api-url', service.url, '--api-key', adminKey],
      env,
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/^Added [0-9a-f-]{36} \(CLI docs\)$/m);
    // Not a terminal: progress comes as lines, the last one the final figures.
    expect(add.stdout).toMatch(/\[#{30}\] 5\/5 pages \(5 updated, 0 unchanged, 0 removed, 0 failed\) done/);
    const id = /^Added ([0-9a-f-]{36})/m.exec(add.stdout)![1]!;

    const list = await runToEnd(['packages/cli/src/main.ts', 'sources', 'list', '--api-url', service.url, '--api-key', adminKey], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`${id}  CLI docs  api_endpoints  on demand  last sync: done`);

    const sync = await runToEnd(['packages/cli/src/main.ts', 'sources', 'sync', id, '--json', '--api-url', service.url, '--api-key', adminKey], env);
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ id, lastSync: { status: 'done', pages: { unchanged: 5, updated: 0 } } });

    // A Confluence space is sent as one (this server has no WIKI_* account, and says so).
    const space = await runToEnd(['packages/cli/src/main.ts', 'sources', 'add', '--confluence', 'ENG', '--every', '60', '--api-url', service.url, '--api-key', adminKey], env);
    expect(space.code).toBe(1);
    expect(space.stderr).toContain('HTTP 503: Confluence sources are not configured on this server: set WIKI_BASE_URL, WIKI_EMAIL, WIKI_API_TOKEN');

    const noKey = await runToEnd(['packages/cli/src/main.ts', 'sources', 'list', '--api-url', service.url], env);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('--api-key is required');
    const wrongKey = await runToEnd(['packages/cli/src/main.ts', 'sources', 'list', '--api-url', service.url, '--api-key', key], env);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^HTTP 403: /);
  }, 120_000);

  describe('security', () => {
    securitySuite(() => service, [
      { procedure: 'sources.create', json: { kind: 'website', name: 'x', namespace: 'user_docs', settings: { startUrl: 'https://docs.example.com/' }, sync: false } },
      { procedure: 'sources.list' },
      { procedure: 'sources.get', path: `/api/v1/sources/${SOURCE_ID}` },
      { procedure: 'sources.update', path: `/api/v1/sources/${SOURCE_ID}`, json: { name: 'y' } },
      { procedure: 'sources.delete', path: `/api/v1/sources/${SOURCE_ID}` },
      { procedure: 'sources.sync', path: `/api/v1/sources/${SOURCE_ID}/sync` },
      { procedure: 'sources.failures', path: `/api/v1/sources/${SOURCE_ID}/failures` },
    ]);
    it('refuses a key that is not an admin key', async () => {
      expect((await service.api('/api/v1/sources', { key })).status).toBe(403);
    });
  });
});

const available = await isPostgresAvailable();

describe.runIf(available)('sources in services mode: PostgreSQL, Redis and workers', () => {
  let site: FakeSite;
  let service: TestService;
  const workers: RunningWorker[] = [];
  let adminKey: string;

  beforeAll(async () => {
    site = await startFakeSite();
    serveDocs(site, 6);
    service = await startTestService('postgres', { redis: true, env: { KB_ALLOW_PRIVATE_URLS: 'true', KB_SOURCE_MIN_INTERVAL_MS: '0' } });
    adminKey = (await service.createKey({ admin: true })).key;
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      REDIS_URL: TEST_REDIS_URL,
      KB_QUEUE_PREFIX: service.services.config.jobs.queuePrefix,
      KB_ALLOW_PRIVATE_URLS: 'true',
      KB_SOURCE_MIN_INTERVAL_MS: '0',
    });
    for (let i = 0; i < 2; i++) workers.push(await startWorker(config, { logger: createLogger({ level: 'silent' }), database: service.services.database }));
  }, 90_000);
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await service?.close();
    await site?.close();
  });

  it('syncs through a worker, keeps the schedule in Redis, and runs each tick once across workers', async () => {
    const created = await json(
      await service.api('/api/v1/sources', {
        method: 'POST',
        key: adminKey,
        json: { kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 }, scheduleMinutes: 30 },
      }),
    );
    const synced = await waitForSync(service, adminKey, created.id);
    expect(synced.lastSync).toMatchObject({ status: 'done', pages: { discovered: 6, updated: 6 } });

    const queue = (service.services.jobs.queue as BullJobQueue).queue;
    const scheduler = await queue.getJobScheduler(sourceSchedulerId(created.id));
    expect(scheduler).toMatchObject({ every: 30 * 60_000, name: SOURCE_SCHEDULE_ENTRY });

    // Two ticks delivered at once, to two workers: one sync job.
    const before = await sql<{ n: number }>`select count(*)::int as n from ingestion_jobs where type = 'source-sync'`.execute(service.services.database.db);
    await Promise.all([queue.add(SOURCE_SCHEDULE_ENTRY, { jobId: '', sourceId: created.id }), queue.add(SOURCE_SCHEDULE_ENTRY, { jobId: '', sourceId: created.id })]);
    await expect
      .poll(async () => (await sql<{ n: number }>`select count(*)::int as n from ingestion_jobs where type = 'source-sync'`.execute(service.services.database.db)).rows[0]!.n, {
        timeout: 30_000,
        interval: 100,
      })
      .toBe(before.rows[0]!.n + 1);
    const again = await waitForSync(service, adminKey, created.id);
    expect(again.lastSync.pages).toMatchObject({ unchanged: 6, updated: 0 });

    // Without a schedule, no scheduler; a worker starting up puts back what Redis lost.
    await service.api(`/api/v1/sources/${created.id}`, { method: 'PATCH', key: adminKey, json: { scheduleMinutes: null } });
    expect(await queue.getJobScheduler(sourceSchedulerId(created.id))).toBeUndefined();
    await service.api(`/api/v1/sources/${created.id}`, { method: 'PATCH', key: adminKey, json: { scheduleMinutes: 45 } });
    await queue.removeJobScheduler(sourceSchedulerId(created.id));
    await workers[0]!.services.sources.reconcileSchedules();
    expect(await queue.getJobScheduler(sourceSchedulerId(created.id))).toMatchObject({ every: 45 * 60_000 });

    const docs = await json(await service.api(`/api/v1/documents?sourceId=${created.id}`, { key: adminKey }));
    expect(docs.total).toBe(6);
  }, 300_000);
  it("ticks first one interval after a source is added (sync: false syncs nothing), and gives the next tick as Redis keeps it, which a manual sync does not move", async () => {
    const created = await json(
      await service.api('/api/v1/sources', {
        method: 'POST',
        key: adminKey,
        json: { kind: 'website', name: 'Next tick', namespace: 'tech_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 }, scheduleMinutes: 60, sync: false },
      }),
    );
    const queue = (service.services.jobs.queue as BullJobQueue).queue;
    const tick = (await queue.getJobScheduler(sourceSchedulerId(created.id)))!.next!;
    expect(tick - Date.now()).toBeGreaterThan(50 * 60_000);
    expect(Date.parse(created.nextSyncAt)).toBe(tick);
    const db = service.services.database.db;
    const syncs = async () => (await sql<{ n: string }>`select count(*) as n from ingestion_jobs where type = 'source-sync' and payload->>'sourceId' = ${created.id}`.execute(db)).rows[0]!.n;
    expect(await syncs()).toBe('0');
    expect((await service.api(`/api/v1/sources/${created.id}/sync`, { method: 'POST', key: adminKey })).status).toBe(202);
    await waitForSync(service, adminKey, created.id);
    const after = await json(await service.api(`/api/v1/sources/${created.id}`, { key: adminKey }));
    expect(after.lastSync).toMatchObject({ status: 'done' });
    expect(Date.parse(after.nextSyncAt)).toBe((await queue.getJobScheduler(sourceSchedulerId(created.id)))!.next);
    expect(Date.parse(after.nextSyncAt)).toBe(tick);
  }, 120_000);

  it('ticks a schedule by itself in Redis: each tick is one sync, taken by one of the two workers', async () => {
    const created = await json(
      await service.api('/api/v1/sources', {
        method: 'POST',
        key: adminKey,
        json: { kind: 'website', name: 'Ticking', namespace: 'tech_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 }, scheduleMinutes: 5, sync: false },
      }),
    );
    const producer = service.services.jobs.queue as BullJobQueue;
    const db = service.services.database.db;
    const syncs = async () =>
      (
        await sql<{ status: string; trigger: string }>`select status, payload->>'trigger' as trigger from ingestion_jobs where type = 'source-sync' and payload->>'sourceId' = ${created.id}`.execute(db)
      ).rows;
    // The source's own scheduler, with a minute of 400 ms: its five minutes tick every 2 s. Nobody asks for a sync.
    await new BullSourceScheduler(producer, 400).set(created.id, 5);
    await expect
      .poll(async () => (await syncs()).filter((j) => j.status === 'done').length, { timeout: 180_000, interval: 250 })
      .toBeGreaterThanOrEqual(2);
    await new BullSourceScheduler(producer).set(created.id, null);
    await waitForSync(service, adminKey, created.id);

    const ticks = (await producer.queue.getJobs(['completed', 'failed', 'active', 'wait', 'delayed'])).filter((j) => j.name === SOURCE_SCHEDULE_ENTRY && j.data.sourceId === created.id);
    const handled = ticks.filter((tick) => tick.finishedOn !== undefined);
    // Every tick ran once (never again after a stall or on the other worker), and each made at most one sync.
    expect(handled.every((tick) => tick.attemptsMade <= 1 && tick.failedReason === undefined)).toBe(true);
    const all = await syncs();
    expect(all.every((j) => j.trigger === 'schedule')).toBe(true);
    expect(all.length).toBeLessThanOrEqual(handled.length);
    expect(all.filter((j) => j.status === 'done').length).toBeGreaterThanOrEqual(2);
  }, 300_000);
});
