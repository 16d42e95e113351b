import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { SlidingWindowRateLimiter } from './rate-limiter.ts';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAvailable(): Promise<Redis | null> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    if (process.env.CI === 'true') throw new Error(`Redis is required in CI: ${String(error)}`);
    console.warn(`Redis at ${redisUrl} is unreachable: its rate-limit tests are skipped.`);
    return null;
  }
}

const redis = await redisAvailable();
// Every key this file writes is under one prefix, deleted at the end: test runs leave nothing behind.
const RUN_PREFIX = `kb:test:${randomUUID()}`;
afterAll(async () => {
  if (!redis) return;
  const keys = await redis.keys(`${RUN_PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const backends: Array<[string, () => SlidingWindowRateLimiter, (now: () => number) => SlidingWindowRateLimiter]> = [
  ['memory', () => new SlidingWindowRateLimiter(), (now) => new SlidingWindowRateLimiter({ now })],
];
if (redis) {
  const prefix = `${RUN_PREFIX}:${randomUUID()}`;
  backends.push([
    'redis',
    () => new SlidingWindowRateLimiter({ redis, keyPrefix: prefix }),
    (now) => new SlidingWindowRateLimiter({ redis, keyPrefix: `${prefix}:${randomUUID()}`, now }),
  ]);
}

describe.each(backends)('sliding-window limits (%s)', (_name, make, makeAt) => {
  it('allows exactly the limit, then blocks with a retry time', async () => {
    const limiter = make();
    const subject = randomUUID();
    for (let i = 0; i < 3; i++) {
      const d = await limiter.hit(subject, [{ windowSeconds: 60, limit: 3 }]);
      expect(d).toMatchObject({ allowed: true, limit: 3, remaining: expect.any(Number) });
    }
    const blocked = await limiter.hit(subject, [{ windowSeconds: 60, limit: 3 }]);
    expect(blocked.allowed).toBe(false);
    expect(blocked.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(blocked.retryAfterSeconds).toBeLessThanOrEqual(120);
    // Other subjects are unaffected.
    expect((await limiter.hit(randomUUID(), [{ windowSeconds: 60, limit: 3 }])).allowed).toBe(true);
  });

  it('null is unlimited and 0 allows nothing', async () => {
    const limiter = make();
    for (let i = 0; i < 20; i++) {
      expect((await limiter.hit('u', [{ windowSeconds: 60, limit: null }])).allowed).toBe(true);
    }
    const zero = await limiter.hit(randomUUID(), [{ windowSeconds: 60, limit: 0 }]);
    expect(zero).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
  });

  it('slides: a burst at the end of one minute still counts early in the next', async () => {
    let now = 1_000 * 60_000 + 59_000; // 59 s into a bucket
    const limiter = makeAt(() => now);
    const subject = randomUUID();
    for (let i = 0; i < 5; i++) expect((await limiter.hit(subject, [{ windowSeconds: 60, limit: 5 }])).allowed).toBe(true);
    now += 2_000; // 1 s into the next bucket: a fixed window would allow 5 more
    expect((await limiter.hit(subject, [{ windowSeconds: 60, limit: 5 }])).allowed).toBe(false);
    now += 58_000; // 59 s into the bucket: the burst has almost left the window
    expect((await limiter.hit(subject, [{ windowSeconds: 60, limit: 5 }])).allowed).toBe(true);
  });

  it('refunds rejected requests and enforces the stricter of two windows', async () => {
    const limiter = make();
    const subject = randomUUID();
    const limits = [
      { windowSeconds: 60, limit: 10 },
      { windowSeconds: 86_400, limit: 2 },
    ];
    expect((await limiter.hit(subject, limits)).allowed).toBe(true);
    expect((await limiter.hit(subject, limits)).allowed).toBe(true);
    const blocked = await limiter.hit(subject, limits);
    expect(blocked).toMatchObject({ allowed: false, limit: 2 });
    expect(blocked.retryAfterSeconds).toBeGreaterThan(60);
    // The minute window was refunded: 2 counted, 8 remaining after one more hit would be 7.
    const minuteOnly = await limiter.hit(subject, [{ windowSeconds: 60, limit: 10 }]);
    expect(minuteOnly.remaining).toBe(7);
  });
});

describe.runIf(redis)('redis counters', () => {
  it('always expire', async () => {
    const prefix = `${RUN_PREFIX}:${randomUUID()}`;
    const limiter = new SlidingWindowRateLimiter({ redis: redis!, keyPrefix: prefix });
    await limiter.hit('s', [{ windowSeconds: 60, limit: 5 }, { windowSeconds: 86_400, limit: 5 }]);
    const keys = await redis!.keys(`${prefix}*`);
    expect(keys.length).toBe(2);
    for (const key of keys) {
      const ttl = await redis!.pttl(key);
      expect(ttl).toBeGreaterThan(0);
    }
  });

  it('counts every window of a request in one command, and refunds a refused one', async () => {
    const prefix = `${RUN_PREFIX}:${randomUUID()}`;
    const limiter = new SlidingWindowRateLimiter({ redis: redis!, keyPrefix: prefix });
    const sent: string[] = [];
    const send = redis!.sendCommand.bind(redis!);
    redis!.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
      sent.push(command.name);
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    }) as Redis['sendCommand'];
    try {
      const limits = [
        { windowSeconds: 60, limit: 1 },
        { windowSeconds: 86_400, limit: 5 },
      ];
      expect((await limiter.hit('s', limits)).allowed).toBe(true);
      expect(sent.length).toBe(1);
      expect((await limiter.hit('s', limits)).allowed).toBe(false);
    } finally {
      redis!.sendCommand = send;
    }
    // The refused request was taken back from both windows' counters.
    const counts = await Promise.all((await redis!.keys(`${prefix}*`)).map((key) => redis!.get(key)));
    expect(counts.sort()).toEqual(['1', '1']);
  });

  it('reads counters written by the counting it replaced (rate-limiter-flexible)', async () => {
    const prefix = `${RUN_PREFIX}:${randomUUID()}`;
    const now = Date.now();
    const bucket = Math.floor(now / 60_000);
    // Three requests counted in the current minute before an upgrade: their key and value.
    await redis!.set(`${prefix}:60:s:${bucket}`, '3', 'EX', 120);
    const limiter = new SlidingWindowRateLimiter({ redis: redis!, keyPrefix: prefix, now: () => now });
    expect(await limiter.hit('s', [{ windowSeconds: 60, limit: 4 }])).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.hit('s', [{ windowSeconds: 60, limit: 4 }])).allowed).toBe(false);
  });
});

describe.runIf(redis !== null)('subjects built from client input (redis)', () => {
  it('keeps every key short however long the subject, and still counts it on its own', async () => {
    const prefix = `${RUN_PREFIX}:${randomUUID()}`;
    const limiter = new SlidingWindowRateLimiter({ redis: redis!, keyPrefix: prefix });
    const long = `login:${'x'.repeat(50_000)}`;
    expect((await limiter.hit(long, [{ windowSeconds: 60, limit: 1 }])).allowed).toBe(true);
    expect((await limiter.hit(long, [{ windowSeconds: 60, limit: 1 }])).allowed).toBe(false);
    expect((await limiter.hit(`${long}y`, [{ windowSeconds: 60, limit: 1 }])).allowed).toBe(true);
    const keys = await redis!.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key.length).toBeLessThan(prefix.length + 300);
  });
});
