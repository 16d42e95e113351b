import { createServer, connect, type Server, type Socket } from 'node:net';
import { isPostgresAvailable, TEST_REDIS_URL } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';

const available = await isPostgresAvailable();

/**
 * A TCP relay in front of Redis that can stall: while stalled it holds what clients send (as a
 * Redis busy with a long script or a slow disk would) and passes it on when resumed.
 */
async function startStallingRelay(target: URL): Promise<{ url: string; stall(): void; resume(): void; close(): Promise<void> }> {
  let stalled = false;
  const links = new Set<{ client: Socket; upstream: Socket; held: Buffer[] }>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    const link = { client, upstream, held: [] as Buffer[] };
    links.add(link);
    client.on('data', (data) => (stalled ? link.held.push(data) : upstream.write(data)));
    upstream.on('data', (data) => client.write(data));
    const end = () => {
      client.destroy();
      upstream.destroy();
      links.delete(link);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const link of links) for (const data of link.held.splice(0)) link.upstream.write(data);
    },
    close: async () => {
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.runIf(available)('services mode: a Redis that stops answering', () => {
  let relay: Awaited<ReturnType<typeof startStallingRelay>>;
  let service: TestService;
  let admin: string;
  let limited: string;

  beforeAll(async () => {
    relay = await startStallingRelay(new URL(TEST_REDIS_URL));
    service = await startTestService('postgres', {
      redis: true,
      env: {
        REDIS_URL: relay.url,
        WIKI_BASE_URL: 'https://wiki.example.invalid',
        WIKI_EMAIL: 'ops@example.com',
        WIKI_API_TOKEN: 'token',
      },
    });
    admin = (await service.createKey({ admin: true, rateLimitRpm: null, rateLimitRpd: null })).key;
    limited = (await service.createKey({ rateLimitRpm: 1_000 })).key;
  }, 60_000);
  afterAll(async () => {
    relay?.resume();
    await service?.close();
    await relay?.close();
  });

  const timed = async (request: () => Promise<Response>) => {
    const started = performance.now();
    const res = await request();
    return { res, seconds: (performance.now() - started) / 1000 };
  };

  it('answers readiness, rate-limited requests and wiki imports with 503 in seconds, and recovers', async () => {
    const search = () => service.api('/api/v1/search', { method: 'POST', key: limited, json: { query: 'anything' } });
    const wiki = () => service.api('/api/v1/ingest/wiki', { method: 'POST', key: admin, json: { spaceKey: 'OPS', namespace: 'user_docs' } });
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    expect((await search()).status).toBe(200);

    relay.stall();
    const ready = await timed(() => fetch(`${service.url}/readyz`));
    expect(ready.res.status).toBe(503);
    expect(await json(ready.res)).toEqual({ status: 'unavailable', checks: { database: 'ok', redis: 'unreachable' } });
    // Far above the 2 s Redis command timeout, for a busy machine; far below a hang.
    expect(ready.seconds).toBeLessThan(20);
    for (const request of [search, wiki]) {
      const { res, seconds } = await timed(request);
      expect(res.status).toBe(503);
      expect(await json(res)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(seconds).toBeLessThan(20);
    }
    // Requests that need no Redis are unaffected.
    expect((await service.api('/api/v1/search', { method: 'POST', key: admin, json: { query: 'anything' } })).status).toBe(200);

    relay.resume();
    await expect.poll(async () => (await fetch(`${service.url}/readyz`)).status, { timeout: 30_000, interval: 200 }).toBe(200);
    expect((await search()).status).toBe(200);
    const accepted = await wiki();
    expect(accepted.status).toBe(202);
  }, 150_000);
});
