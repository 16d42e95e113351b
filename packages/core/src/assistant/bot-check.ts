import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';

export interface BotCheckSettings {
  provider: 'turnstile' | 'hcaptcha';
  siteKey: string;
  secret: string;
  /** The provider's siteverify address (a local fake in tests). */
  verifyUrl: string;
}

const PROVIDER_NAMES = { turnstile: 'Cloudflare Turnstile', hcaptcha: 'hCaptcha' } as const;
/** How long the provider has to answer; the visitor is waiting. */
const VERIFY_TIMEOUT_MS = 5_000;

/**
 * The optional bot check of publishable keys: a challenge token from the page (Turnstile or
 * hCaptcha) verified once with the provider's siteverify API. Fails closed: a provider that
 * cannot be reached is a 503, never a pass.
 */
export class BotCheck {
  constructor(
    readonly settings: BotCheckSettings,
    private readonly logger: Logger,
  ) {}

  /**
   * Verifies a challenge token; throws 403 when the provider says no, 503 when it cannot say.
   * Gives the host name of the page the challenge was solved on, as the provider saw it.
   */
  async verify(token: string, remoteIp: string): Promise<{ hostname: string | undefined }> {
    const name = PROVIDER_NAMES[this.settings.provider];
    let outcome: { success?: unknown; 'error-codes'?: unknown; hostname?: unknown };
    try {
      const response = await fetch(this.settings.verifyUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret: this.settings.secret, response: token, remoteip: remoteIp, sitekey: this.settings.siteKey }),
        signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`${name} answered ${response.status}`);
      outcome = (await response.json()) as typeof outcome;
    } catch (error) {
      this.logger.warn({ err: error, provider: this.settings.provider }, 'bot check could not be verified');
      throw new AppError('SERVICE_UNAVAILABLE', `The bot check could not be verified: ${name} did not answer; try again in a moment`, { cause: error, headers: { 'Retry-After': '5' } });
    }
    if (outcome.success !== true) {
      const codes = Array.isArray(outcome['error-codes']) ? outcome['error-codes'].map(String).join(', ') : 'no reason given';
      throw new AppError('FORBIDDEN', `The bot check failed (${codes.slice(0, 200)}): reload the page and try again`);
    }
    return { hostname: typeof outcome.hostname === 'string' ? outcome.hostname : undefined };
  }
}
