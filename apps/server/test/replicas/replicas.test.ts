import { loadConfig } from '@kb/config';
import { createLogger } from '@kb/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/app.ts';
import { caughtUp, Cluster } from './clusters.ts';

/**
 * Reads through real streaming replicas: a primary and two replicas (pg_basebackup -R) started
 * here, the service on top of them over HTTP. Whether a read was served by a replica is told by
 * what it sees: with a replica's replay paused, a document just written on the primary is missing
 * there and present on the primary.
 */

let primary: Cluster;
let replicas: Cluster[] = [];

beforeAll(async () => {
  primary = await Cluster.primary();
  replicas = [await primary.replica(), await primary.replica()];
}, 120_000);

afterAll(async () => {
  await Promise.all([...replicas, primary].map((c) => c?.destroy()));
});

interface Api {
  service: RunningService;
  key: string;
  call(path: string, init?: { method?: string; json?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

async function start(env: Record<string, string> = {}): Promise<Api> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: primary.url,
    DATABASE_REPLICA_URLS: replicas.map((r) => r.url).join(','),
    KB_DB_POOL_SIZE: '4',
    ...env,
  });
  const service = await startService(config, { logger: createLogger({ level: 'silent' }) });
  const { key } = await service.services.keys.create({ label: 'replicas', admin: true });
  return {
    service,
    key,
    call(path, init = {}) {
      return fetch(`${service.url}/api/v1${path}`, {
        method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
        headers: { authorization: `Bearer ${key}`, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
        ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      });
    },
    close: () => service.stop(1_000),
  };
}

const pause = (c: Cluster) => c.query('select pg_wal_replay_pause()');
const resume = (c: Cluster) => c.query('select pg_wal_replay_resume()');

async function ingest(api: Api, slug: string, word: string): Promise<string> {
  const res = await api.call('/ingest/md', {
    json: { title: `The ${word} page`, slug, namespace: 'user_docs', content: `# ${word}\n\nThe ${word} setting turns ${word} mode on for every project.\n` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { documentId: string }).documentId;
}

async function finds(api: Api, word: string, headers: Record<string, string> = {}): Promise<boolean> {
  const res = await api.call('/search', { json: { query: `${word} setting`, topK: 10 }, headers });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { results: Array<{ slug: string }> };
  return body.results.some((r) => r.slug === word);
}

async function inRotation(api: Api): Promise<number> {
  const body = (await (await fetch(`${api.service.url}/readyz`)).json()) as { replicas?: { inRotation: number } };
  return body.replicas?.inRotation ?? -1;
}

describe('read replicas', () => {
  let api: Api;
  beforeAll(async () => {
    // A lag bound far above this test's pauses: the replicas stay in rotation while paused.
    api = await start({ KB_REPLICA_MAX_LAG_MS: '600000' });
    await Promise.all(replicas.map((r) => caughtUp(primary, r)));
  }, 60_000);
  afterAll(() => api?.close());

  it('serves searches and lists from the replicas, writes and read-your-write from the primary', async () => {
    expect(await inRotation(api)).toBe(2);
    await Promise.all(replicas.map(pause));
    // Replicas are read-only: the write succeeding means it went to the primary.
    const id = await ingest(api, 'alpha', 'alpha');
    try {
      for (let i = 0; i < 4; i++) expect(await finds(api, 'alpha')).toBe(false);
      const list = (await (await api.call('/documents?namespace=user_docs')).json()) as { total: number };
      expect(list.total).toBe(0);
      // A single document is read from the primary: a client may fetch what it was just told of.
      expect((await api.call(`/documents/${id}`)).status).toBe(200);
      // Read-your-write on request.
      expect(await finds(api, 'alpha', { 'KB-Read-From': 'primary' })).toBe(true);
      const pinnedList = (await (await api.call('/documents?namespace=user_docs', { headers: { 'KB-Read-From': 'primary' } })).json()) as { total: number };
      expect(pinnedList.total).toBe(1);
      expect((await api.call('/search', { json: { query: 'alpha' }, headers: { 'KB-Read-From': 'nearest' } })).status).toBe(400);

      // One replica catches up, the other stays behind: searches alternate between them.
      await resume(replicas[0]!);
      await caughtUp(primary, replicas[0]!);
      const seen = [];
      for (let i = 0; i < 8; i++) seen.push(await finds(api, 'alpha'));
      expect(seen.filter(Boolean).length).toBe(4);
    } finally {
      await Promise.all(replicas.map(resume));
    }
    await caughtUp(primary, replicas[1]!);
    expect(await finds(api, 'alpha')).toBe(true);
  });

  it('keeps answering with no failed request while replicas stop, and takes them back when they return', async () => {
    let stop = false;
    let ok = 0;
    const failures: string[] = [];
    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const kind = (n + i) % 3;
        const res =
          kind === 0
            ? await api.call('/search', { json: { query: 'alpha setting' } })
            : kind === 1
              ? await api.call('/search', { json: { query: 'alpha mode project', mode: 'hybrid' } })
              : await api.call('/documents?limit=5');
        if (res.status === 200) ok++;
        else failures.push(`${res.status} ${await res.text()}`);
        await res.body?.cancel().catch(() => undefined);
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(client));
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    try {
      await sleep(1_000);
      await replicas[0]!.stop();
      await sleep(2_000);
      expect(await inRotation(api)).toBe(1);
      // Both gone: the primary serves every read.
      await replicas[1]!.stop();
      await sleep(2_000);
      expect(await inRotation(api)).toBe(0);
      await Promise.all(replicas.map((r) => r.start()));
      // Checked again with a backoff (1 s doubling, at most 30 s): back within it.
      await expect.poll(() => inRotation(api), { timeout: 45_000, interval: 500 }).toBe(2);
      await sleep(1_000);
    } finally {
      stop = true;
      await load;
    }
    expect(failures).toEqual([]);
    expect(ok).toBeGreaterThan(50);

    // Back in rotation means reads land there again.
    await Promise.all(replicas.map((r) => caughtUp(primary, r)));
    await Promise.all(replicas.map(pause));
    try {
      await ingest(api, 'beta', 'beta');
      for (let i = 0; i < 4; i++) expect(await finds(api, 'beta')).toBe(false);
    } finally {
      await Promise.all(replicas.map(resume));
    }
  }, 120_000);
});

describe('the lag bound', () => {
  let api: Api;
  beforeAll(async () => {
    api = await start({ KB_REPLICA_MAX_LAG_MS: '1000' });
    await Promise.all(replicas.map((r) => caughtUp(primary, r)));
  }, 60_000);
  afterAll(() => api?.close());

  it('takes a replica out of rotation while it is further behind than KB_REPLICA_MAX_LAG_MS', async () => {
    await expect.poll(() => inRotation(api), { timeout: 10_000 }).toBe(2);
    await Promise.all(replicas.map(pause));
    try {
      await ingest(api, 'gamma', 'gamma');
      // Within the bound a search may miss it; past it the replicas are left out and the primary answers.
      await expect.poll(() => inRotation(api), { timeout: 10_000, interval: 250 }).toBe(0);
      expect(await finds(api, 'gamma')).toBe(true);
    } finally {
      await Promise.all(replicas.map(resume));
    }
    await expect.poll(() => inRotation(api), { timeout: 10_000, interval: 250 }).toBe(2);
    expect(await finds(api, 'gamma')).toBe(true);
  });
});
