import { AppError } from '../errors.ts';
import { metrics } from '../telemetry/metrics.ts';
import { addressSubject } from '../faq/limits.ts';
import type { AuthenticatedKey } from '../keys/types.ts';
import { rateLimitHeaders, type RateLimitDecision, type SlidingWindowRateLimiter } from '../ratelimit/rate-limiter.ts';

/** "20 s", "5 min", "3 h": a wait as a visitor reads it. */
export function readableWait(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

function refused(decision: RateLimitDecision, message: string): AppError {
  return new AppError('TOO_MANY_REQUESTS', message, {
    headers: { ...rateLimitHeaders(decision), 'Retry-After': String(decision.retryAfterSeconds ?? 1) },
  });
}

/**
 * The budgets of a publishable key, which anyone can copy from a page: the questions each
 * visitor (client address) may ask a minute and a day, and the answers the whole key may give a
 * day. On the service's one rate limiter (memory, or Redis shared by every server process).
 */
export class PublishableLimits {
  constructor(
    private readonly limiter: SlidingWindowRateLimiter,
    /** Prefix of the counters' subjects (KB_QUEUE_PREFIX): deployments sharing one Redis count apart. */
    private readonly prefix: string,
  ) {}

  /** Counts a visitor's question (a chat message or a search); a 429 in words when over. */
  async question(key: AuthenticatedKey, address: string): Promise<RateLimitDecision> {
    const decision = await this.limiter.hit(`${this.prefix}:visitor:${key.id}:${addressSubject(address)}`, [
      { windowSeconds: 60, limit: key.visitorRateLimitRpm },
      { windowSeconds: 86_400, limit: key.visitorRateLimitRpd },
    ]);
    if (!decision.allowed) {
      metrics.rateLimited('visitor');
      const wait = readableWait(decision.retryAfterSeconds ?? 1);
      const asked = decision.limit === 1 ? 'one question' : `${decision.limit} questions`;
      throw refused(
        decision,
        decision.limit === 0
          ? 'This assistant takes no questions at the moment'
          : decision.windowSeconds === 60
            ? `You have asked ${asked} in the last minute; try again in ${wait}`
            : `You have asked ${asked} today; try again in ${wait}`,
      );
    }
    return decision;
  }

  /** Counts an answer against the key's daily budget; a 429 in words when it is spent. */
  async answer(key: AuthenticatedKey): Promise<void> {
    const decision = await this.limiter.hit(`${this.prefix}:answers:${key.id}`, [{ windowSeconds: 86_400, limit: key.dailyAnswerLimit }]);
    if (!decision.allowed) {
      metrics.rateLimited('answers');
      throw refused(decision, `This assistant has answered all the questions it may today; try again in ${readableWait(decision.retryAfterSeconds ?? 1)}`);
    }
  }
}
