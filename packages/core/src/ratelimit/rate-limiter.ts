import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Sliding-window rate limits ("at most N requests in any 60 s / 24 h"), shared by every server
 * process when counters live in Redis.
 *
 * Counting and expiry are rate-limiter-flexible's atomic counters (one Lua INCR+PEXPIRE in
 * Redis, or timers in memory). On top of them the window slides by the standard two-bucket
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

export class SlidingWindowRateLimiter {
  private readonly counters = new Map<number, Counter>();

  constructor(
    private readonly options: { redis?: Redis; keyPrefix?: string; now?: () => number } = {},
  ) {}

  private counter(windowSeconds: number): Counter {
    let counter = this.counters.get(windowSeconds);
    if (!counter) {
      const common = {
        // The counters never reject by themselves: the window logic below decides.
        points: Number.MAX_SAFE_INTEGER,
        // A bucket is read while it is current and while it is the previous one.
        duration: windowSeconds * 2,
        keyPrefix: `${this.options.keyPrefix ?? 'kb:rl'}:${windowSeconds}`,
      };
      counter = this.options.redis
        ? new RateLimiterRedis({ ...common, storeClient: this.options.redis, rejectIfRedisNotReady: true })
        : new RateLimiterMemory(common);
      this.counters.set(windowSeconds, counter);
    }
    return counter;
  }

  async hit(anySubject: string, limits: readonly WindowLimit[]): Promise<RateLimitDecision> {
    const subject = boundedSubject(anySubject);
    const active = limits.filter((l): l is { windowSeconds: number; limit: number } => l.limit !== null);
    if (active.length === 0) return { allowed: true };

    const now = this.options.now?.() ?? Date.now();
    const consumed: Array<{ counter: Counter; key: string }> = [];
    const outcomes: RateLimitDecision[] = [];
    let blocked = false;
    try {
      for (const { windowSeconds, limit } of active) {
        const windowMs = windowSeconds * 1000;
        if (limit === 0) {
          blocked = true;
          outcomes.push({ allowed: false, limit, windowSeconds, remaining: 0, resetSeconds: windowSeconds, retryAfterSeconds: windowSeconds });
          continue;
        }
        const bucket = Math.floor(now / windowMs);
        const elapsed = (now - bucket * windowMs) / windowMs;
        const counter = this.counter(windowSeconds);
        const key = `${subject}:${bucket}`;
        const [current, previous] = await Promise.all([
          counter.consume(key, 1),
          counter.get(`${subject}:${bucket - 1}`),
        ]);
        consumed.push({ counter, key });
        const currentCount = current.consumedPoints;
        const previousCount = previous?.consumedPoints ?? 0;
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
        await Promise.all(consumed.map(({ counter, key }) => counter.reward(key, 1)));
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
