import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Sliding-window rate limits ("at most N requests in any 60 s / 24 h"), shared by every server
 * process when counters live in Redis.
 *
 * Counting and expiry are atomic counters: in Redis one script counting every window of a
 * request in one round trip, in memory rate-limiter-flexible's (timers). On top of them the
 * window slides by the standard two-bucket
 * estimate: the count of the current fixed bucket plus the previous bucket's count weighted
 * by how much of it still lies inside the window. That is exact at bucket edges and assumes
 * requests were spread evenly across the previous bucket. Rejected requests are refunded, so
 * they do not push the window further out.
 */

export interface WindowLimit {
  /** Window length in seconds (60 for per-minute, 86400 for per-day limits). */
  windowSeconds: number;
  /** Requests allowed in any window; null is unlimited; 0 allows nothing. */
  limit: number | null;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** The window closest to its limit (absent when every limit is null): its limit and length. */
  limit?: number;
  windowSeconds?: number;
  remaining?: number;
  /** Seconds until the window has room again (blocked) or until its current bucket ends. */
  resetSeconds?: number;
  /** Set when blocked: whole seconds to wait before retrying. */
  retryAfterSeconds?: number;
}

export class RateLimiterUnavailableError extends Error {
  constructor(cause: unknown) {
    super('Rate-limit counters are unreachable', { cause });
    this.name = 'RateLimiterUnavailableError';
  }
}

type Counter = RateLimiterAbstract;

/** Longest subject kept as it is; longer ones (built from client input) are counted by their hash, so no key grows with it. */
export const MAX_SUBJECT_CHARS = 200;

function boundedSubject(subject: string): string {
  return subject.length <= MAX_SUBJECT_CHARS ? subject : `sha256:${createHash('sha256').update(subject).digest('base64url')}`;
}

/**
 * Counts one request in the current bucket of each window and reads each window's previous
 * bucket, in one round trip: KEYS are (current, previous) pairs, ARGV each window's bucket
 * lifetime in seconds. The keys and their expiry are rate-limiter-flexible's (its Redis counter's
 * script, then a GET), so counters written by either are read by the other.
 */
const COUNT_WINDOWS_SCRIPT = `
local out = {}
for i = 1, #ARGV do
  local current, previous = KEYS[2 * i - 1], KEYS[2 * i]
  redis.call('set', current, 0, 'EX', ARGV[i], 'NX')
  out[2 * i - 1] = redis.call('incrby', current, 1)
  if redis.call('pttl', current) == -1 then redis.call('expire', current, ARGV[i]) end
  out[2 * i] = tonumber(redis.call('get', previous) or '0')
end
return out`;

type RedisWithWindows = Redis & { kbCountWindows(keyCount: number, ...keysAndArgs: Array<string | number>): Promise<number[]> };

interface WindowCount {
  windowSeconds: number;
  limit: number;
  /** Fraction of the current bucket elapsed. */
  elapsed: number;
  current: number;
  previous: number;
  /** The current bucket's counter, to refund. */
  refund: () => Promise<unknown>;
}

export class SlidingWindowRateLimiter {
  private readonly counters = new Map<number, Counter>();
  private readonly redis: RedisWithWindows | undefined;

  constructor(
    private readonly options: { redis?: Redis; keyPrefix?: string; now?: () => number } = {},
  ) {
    const redis = options.redis as RedisWithWindows | undefined;
    if (redis && typeof redis.kbCountWindows !== 'function') redis.defineCommand('kbCountWindows', { lua: COUNT_WINDOWS_SCRIPT });
    this.redis = redis;
  }

  private keyPrefix(windowSeconds: number): string {
    return `${this.options.keyPrefix ?? 'kb:rl'}:${windowSeconds}`;
  }

  /** In-memory counters (rate-limiter-flexible's, with timers). */
  private counter(windowSeconds: number): Counter {
    let counter = this.counters.get(windowSeconds);
    if (!counter) {
      counter = new RateLimiterMemory({
        // The counters never reject by themselves: the window logic below decides.
        points: Number.MAX_SAFE_INTEGER,
        // A bucket is read while it is current and while it is the previous one.
        duration: windowSeconds * 2,
        keyPrefix: this.keyPrefix(windowSeconds),
      });
      this.counters.set(windowSeconds, counter);
    }
    return counter;
  }

  /** Each window's current bucket counted (plus one) and its previous bucket read. */
  private async count(subject: string, now: number, windows: ReadonlyArray<{ windowSeconds: number; limit: number }>): Promise<WindowCount[]> {
    const buckets = windows.map(({ windowSeconds, limit }) => {
      const windowMs = windowSeconds * 1000;
      const bucket = Math.floor(now / windowMs);
      return { windowSeconds, limit, bucket, elapsed: (now - bucket * windowMs) / windowMs };
    });
    const { redis } = this;
    if (redis) {
      // Fail at once, as the counters' own readiness check did, rather than wait on a lost connection.
      if (redis.status !== 'ready') throw new Error(`Redis connection is ${redis.status}`);
      const keys = buckets.flatMap((b) => [`${this.keyPrefix(b.windowSeconds)}:${subject}:${b.bucket}`, `${this.keyPrefix(b.windowSeconds)}:${subject}:${b.bucket - 1}`]);
      const counts = await redis.kbCountWindows(keys.length, ...keys, ...buckets.map((b) => b.windowSeconds * 2));
      return buckets.map((b, i) => ({ ...b, current: counts[2 * i]!, previous: counts[2 * i + 1]!, refund: () => redis.decrby(keys[2 * i]!, 1) }));
    }
    return Promise.all(
      buckets.map(async (b) => {
        const counter = this.counter(b.windowSeconds);
        const key = `${subject}:${b.bucket}`;
        const [current, previous] = await Promise.all([counter.consume(key, 1), counter.get(`${subject}:${b.bucket - 1}`)]);
        return { ...b, current: current.consumedPoints, previous: previous?.consumedPoints ?? 0, refund: () => counter.reward(key, 1) };
      }),
    );
  }

  async hit(anySubject: string, limits: readonly WindowLimit[]): Promise<RateLimitDecision> {
    const subject = boundedSubject(anySubject);
    const active = limits.filter((l): l is { windowSeconds: number; limit: number } => l.limit !== null);
    if (active.length === 0) return { allowed: true };

    const now = this.options.now?.() ?? Date.now();
    const outcomes: RateLimitDecision[] = [];
    let blocked = false;
    for (const { windowSeconds, limit } of active) {
      if (limit === 0) {
        blocked = true;
        outcomes.push({ allowed: false, limit, windowSeconds, remaining: 0, resetSeconds: windowSeconds, retryAfterSeconds: windowSeconds });
      }
    }
    try {
      const counts = await this.count(subject, now, active.filter((l) => l.limit > 0));
      for (const { windowSeconds, limit, elapsed, current: currentCount, previous: previousCount } of counts) {
        const estimate = previousCount * (1 - elapsed) + currentCount;
        if (estimate > limit) {
          blocked = true;
          const wait = secondsUntilRoom(limit, previousCount, currentCount - 1, elapsed, windowSeconds);
          outcomes.push({ allowed: false, limit, windowSeconds, remaining: 0, resetSeconds: wait, retryAfterSeconds: wait });
        } else {
          outcomes.push({
            allowed: true,
            limit,
            windowSeconds,
            remaining: Math.max(0, Math.floor(limit - estimate)),
            resetSeconds: Math.max(1, Math.ceil((1 - elapsed) * windowSeconds)),
          });
        }
      }
      if (blocked) {
        await Promise.all(counts.map((c) => c.refund()));
      }
    } catch (error) {
      throw new RateLimiterUnavailableError(error);
    }

    if (blocked) {
      // The longest wait decides when a retry can succeed.
      return outcomes
        .filter((o) => !o.allowed)
        .reduce((a, b) => ((a.retryAfterSeconds ?? 0) >= (b.retryAfterSeconds ?? 0) ? a : b));
    }
    return outcomes.reduce((a, b) => ((a.remaining ?? Infinity) <= (b.remaining ?? Infinity) ? a : b));
  }
}

/**
 * Seconds from now until one more request fits: the previous bucket's weight decays
 * linearly through the current bucket, after which the current bucket becomes the previous.
 */
function secondsUntilRoom(
  limit: number,
  previous: number,
  current: number,
  elapsed: number,
  windowSeconds: number,
): number {
  const room = limit - current - 1;
  let fraction: number;
  if (room >= 0 && previous > 0) {
    // previous * (1 - elapsed - t) + current + 1 <= limit
    fraction = Math.max(0, 1 - elapsed - room / previous);
  } else {
    // In the next bucket: current * (1 - t') + 1 <= limit
    const rest = 1 - elapsed;
    fraction = rest + (current > 0 ? Math.max(0, 1 - (limit - 1) / current) : 0);
  }
  return Math.max(1, Math.ceil(fraction * windowSeconds));
}

/** The RateLimit-* headers of a decision (none when no limit applied). */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  if (decision.limit === undefined) return {};
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining ?? 0),
    'RateLimit-Reset': String(decision.resetSeconds ?? 0),
  };
}
