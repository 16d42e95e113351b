/**
 * The public FAQ's abuse limits, on the service's one rate limiter (in memory, or in Redis shared
 * by every server process): every request per client address (generous: hits are cheap), cache
 * misses per client address, and FAQs written by the model per day across the service.
 */
import { metrics, type RateLimitName } from '../telemetry/metrics.ts';
import { createHash } from 'node:crypto';
import { isIP, isIPv6 } from 'node:net';
import { AppError } from '../errors.ts';
import { rateLimitHeaders, type RateLimitDecision, type SlidingWindowRateLimiter } from '../ratelimit/rate-limiter.ts';

export interface FaqLimitSettings {
  /** Requests per client address per minute, hits included. */
  requestsPerMinute: number;
  /** Cache misses per client address per minute. */
  missesPerMinute: number;
  /** FAQs written by the model per day, across the service. */
  modelFaqsPerDay: number;
  /** Prefix of the counters' subjects: deployments sharing one Redis count apart (KB_QUEUE_PREFIX). */
  prefix: string;
}

/**
 * The subject a client address is counted as: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its /64
 * (one host usually holds a whole /64, so counting single addresses would not limit it).
 */
export function addressSubject(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  // The server hands on only valid addresses; anything else is counted by a bounded digest.
  if (isIP(address) === 0) return `sha256:${createHash('sha256').update(address).digest('base64url').slice(0, 22)}`;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export class FaqLimits {
  constructor(
    private readonly limiter: SlidingWindowRateLimiter,
    private readonly settings: FaqLimitSettings,
  ) {}

  /** Counts a request of the address (any request, hit or miss). */
  request(address: string): Promise<RateLimitDecision> {
    return this.check('faq', `${this.settings.prefix}:faq:${addressSubject(address)}`, 60, this.settings.requestsPerMinute, 'Too many FAQ requests from this address');
  }

  /** Counts a cache miss of the address. */
  miss(address: string): Promise<RateLimitDecision> {
    return this.check('faq-miss', `${this.settings.prefix}:faq-miss:${addressSubject(address)}`, 60, this.settings.missesPerMinute, 'Too many new FAQ topics from this address (FAQs already made are still served)');
  }

  /** Counts an FAQ the model is about to write. */
  modelFaq(): Promise<RateLimitDecision> {
    return this.check('faq-daily', `${this.settings.prefix}:faq-model`, 86_400, this.settings.modelFaqsPerDay, 'The daily number of new FAQs is used up (FAQs already made are still served)');
  }

  private async check(name: RateLimitName, subject: string, windowSeconds: number, limit: number, message: string): Promise<RateLimitDecision> {
    const decision = await this.limiter.hit(subject, [{ windowSeconds, limit }]);
    if (!decision.allowed) {
      metrics.rateLimited(name);
      const retry = decision.retryAfterSeconds ?? windowSeconds;
      throw new AppError('TOO_MANY_REQUESTS', `${message}; retry in ${retry} s`, {
        headers: { 'Retry-After': String(retry), ...rateLimitHeaders(decision) },
      });
    }
    return decision;
  }
}
