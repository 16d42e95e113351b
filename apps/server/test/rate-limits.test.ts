import { testStoreKinds } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, json } from './helpers.ts';

const kinds = await testStoreKinds();
// Embedded mode counts in memory; services mode (PostgreSQL) counts in Redis.
const setups = kinds.map((kind) => ({ kind, redis: kind === 'postgres' }));

describe.each(setups)('rate limits ($kind, redis: $redis)', ({ kind, redis }) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(kind, { redis });
  });
  afterAll(() => service?.close());

  it('allows rateLimitRpm requests a minute, then 429 with Retry-After; other keys are unaffected', async () => {
    const limited = await service.createKey({ admin: true, rateLimitRpm: 3 });
    const other = await service.createKey({ admin: true, rateLimitRpm: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await service.api('/api/v1/keys', { key: limited.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(2 - i));
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
    const blocked = await service.api('/api/v1/keys', { key: limited.key });
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(blocked.headers.get('ratelimit-remaining')).toBe('0');
    expect(await json(blocked)).toMatchObject({ code: 'TOO_MANY_REQUESTS' });

    expect((await service.api('/api/v1/keys', { key: other.key })).status).toBe(200);
  });

  it('enforces rateLimitRpd the same way', async () => {
    const limited = await service.createKey({ admin: true, rateLimitRpd: 2 });
    expect((await service.api('/api/v1/keys', { key: limited.key })).status).toBe(200);
    expect((await service.api('/api/v1/keys', { key: limited.key })).status).toBe(200);
    const blocked = await service.api('/api/v1/keys', { key: limited.key });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(60);
  });

  it('null is unlimited and 0 allows nothing', async () => {
    const unlimited = await service.createKey({ admin: true, rateLimitRpm: null, rateLimitRpd: null });
    for (let i = 0; i < 25; i++) expect((await service.api('/api/v1/keys', { key: unlimited.key })).status).toBe(200);
    const blockedKey = await service.createKey({ admin: true, rateLimitRpm: 0 });
    expect((await service.api('/api/v1/keys', { key: blockedKey.key })).status).toBe(429);
  });

  it('records requestCount and lastUsedAt within a few seconds, without a write per request', async () => {
    const { id, key } = await service.createKey({ admin: true });
    const before = Date.now();
    for (let i = 0; i < 4; i++) await service.api('/api/v1/keys', { key });
    const row = async () => (await service.services.keys.list()).find((k) => k.id === id);
    // Written every 2 s; a busy machine may take much longer to get there.
    await expect.poll(async () => (await row())?.requestCount, { timeout: 30_000, interval: 250 }).toBe(4);
    expect(new Date((await row())!.lastUsedAt!).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });
});
