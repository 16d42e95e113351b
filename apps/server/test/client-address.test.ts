import { randomBytes } from 'node:crypto';
import { TEST_REDIS_URL, testStoreKinds } from '@kb/db/testing';
import type { SetupServer } from 'msw/node';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MENUS } from './faq-fixtures.ts';
import { startTestService, type TestService } from './helpers.ts';
import { startMockServer } from './msw.ts';

const kinds = await testStoreKinds();
// Embedded mode counts in memory; services mode (PostgreSQL) counts in Redis.
const setups = kinds.map((kind) => ({ kind, redis: kind === 'postgres' }));

describe.each(setups)('the client address behind a trusted proxy ($kind, redis: $redis)', ({ kind, redis }) => {
  let service: TestService;
  let mock: SetupServer;
  const prefix = `addrtest${randomBytes(4).toString('hex')}`;
  const login = (forwardedFor: string) =>
    service.api('/api/v1/auth/login', { method: 'POST', json: { password: `guess-${randomBytes(3).toString('hex')}` }, headers: { 'x-forwarded-for': forwardedFor } });

  beforeAll(async () => {
    mock = startMockServer();
    service = await startTestService(kind, { redis, env: { KB_TRUST_PROXY: 'true', KB_FAQ_RATE_LIMIT_PER_MINUTE: '2', KB_QUEUE_PREFIX: prefix } });
    const { key } = await service.createKey({ admin: true });
    await service.api('/api/v1/ingest/md', { method: 'POST', key, json: { title: 'Menus', slug: 'menus', namespace: 'user_docs', content: MENUS } });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });

  it('counts login attempts by the address the proxy saw: a client rotating its own X-Forwarded-For entries is still limited', async () => {
    const statuses: number[] = [];
    // The proxy appends the address it saw (203.0.113.50); the client writes whatever it likes to the left.
    for (let i = 0; i < 12; i++) statuses.push((await login(`198.51.100.${i}, 203.0.113.50`)).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    // Another client behind the same proxy has its own attempts.
    expect((await login('203.0.113.51')).status).toBe(401);
  });

  it('counts FAQ topics by the address the proxy saw', async () => {
    const faq = (q: string, forwardedFor: string) => service.api(`/api/v1/faq?q=${encodeURIComponent(q)}`, { headers: { 'x-forwarded-for': forwardedFor } });
    expect((await faq('menus', '192.0.2.1, 203.0.113.60')).status).toBe(200);
    expect((await faq('render menus', '192.0.2.2, 203.0.113.60')).status).toBe(200);
    expect((await faq('localize menus', '192.0.2.3, 203.0.113.60')).status).toBe(429);
  });

  it('takes only IP addresses: text where the client address belongs is not a new budget, and grows no counter', async () => {
    const statuses: number[] = [];
    // With one trusted hop, a client that reaches the server directly gets its own text taken as
    // the proxy's entry; it is refused as an address, and the socket's address is counted.
    for (let i = 0; i < 12; i++) statuses.push((await login(`visitor-${i}-${'x'.repeat(20_000)}`)).status);
    expect(statuses.slice(10)).toEqual([429, 429]);
    if (redis) {
      const client = new Redis(TEST_REDIS_URL);
      try {
        const keys = await client.keys('*login*');
        for (const key of keys) expect(key.length).toBeLessThan(300);
      } finally {
        client.disconnect();
      }
    }
  });
});
