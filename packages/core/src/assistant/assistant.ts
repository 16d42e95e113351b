import { AppError } from '../errors.ts';
import type { ApiKeysService } from '../keys/keys.service.ts';
import { hostAllowed, originAllowed, parseOrigin, sameOrigin } from '../keys/origins.ts';
import { looksLikeApiKey, PUBLISHABLE_KEY_PREFIX } from '../keys/secret.ts';
import type { AuthenticatedKey } from '../keys/types.ts';
import type { Namespace } from '../namespaces.ts';
import type { BotCheck } from './bot-check.ts';
import type { PublishableLimits } from './limits.ts';
import type { VisitorTokens } from './visitor-tokens.ts';

/** What a page needs to know before it asks: the key's namespaces, its bot check, its visitor limits. */
export interface AssistantConfig {
  namespaces: Namespace[];
  botCheck: { provider: 'turnstile' | 'hcaptcha'; siteKey: string } | null;
  limits: { visitorRateLimitRpm: number | null; visitorRateLimitRpd: number | null };
}

/**
 * Whether a page at `origin` may use the key: one of its allowed origins, or this server's own
 * pages (`selfOrigin`: the console and the start page preview the assistant without listing it).
 */
export function pageAllowed(key: Pick<AuthenticatedKey, 'allowedOrigins'>, origin: string, selfOrigin: string | undefined): boolean {
  return originAllowed(key.allowedOrigins, origin) || (selfOrigin !== undefined && sameOrigin(origin, selfOrigin));
}

/** The 403 of a page the key does not allow, or of a request from no page at all. */
export function pageRefused(origin: string | undefined): AppError {
  return new AppError(
    'FORBIDDEN',
    origin === undefined
      ? 'A publishable key is used from the web pages it allows: this request has no Origin header'
      : `This site (${origin.slice(0, 200)}) is not allowed to use this assistant: its origin is not among the key's allowed origins`,
  );
}

/**
 * The assistant's side of the service: what a page learns about its key, the bot check that earns
 * a visitor token, and the checks every request of a publishable key goes through (its page,
 * its visitor token, its budgets).
 */
export class AssistantService {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly tokens: VisitorTokens,
    readonly limits: PublishableLimits,
    private readonly botCheck: BotCheck | null,
  ) {}

  /** Whether requests of publishable keys need a visitor token (a bot check is configured). */
  get botCheckRequired(): boolean {
    return this.botCheck !== null;
  }

  /** GET /assistant/config: the key named in the page's script, for the page at `origin`. */
  async config(publishableKey: string, origin: string | undefined, selfOrigin: string | undefined): Promise<AssistantConfig> {
    if (!publishableKey.startsWith(PUBLISHABLE_KEY_PREFIX)) {
      // Never echoed: it may be a secret key someone put in a page by mistake.
      throw new AppError('BAD_REQUEST', `key must be a publishable key (${PUBLISHABLE_KEY_PREFIX}…): a secret key must never be put in a web page`);
    }
    const key = looksLikeApiKey(publishableKey) ? await this.keys.authenticate(publishableKey) : null;
    if (!key) throw new AppError('UNAUTHORIZED', 'Unknown or revoked publishable key');
    this.checkPage(key, origin, selfOrigin);
    const settings = this.botCheck?.settings;
    return {
      namespaces: key.namespaces ?? [],
      botCheck: settings ? { provider: settings.provider, siteKey: settings.siteKey } : null,
      limits: { visitorRateLimitRpm: key.visitorRateLimitRpm, visitorRateLimitRpd: key.visitorRateLimitRpd },
    };
  }

  /** Refuses a request of a publishable key that does not come from a page the key allows. */
  checkPage(key: AuthenticatedKey, origin: string | undefined, selfOrigin: string | undefined): void {
    if (origin === undefined || !pageAllowed(key, origin, selfOrigin)) throw pageRefused(origin);
  }

  /**
   * POST /assistant/visitor: verifies the page's challenge token once and gives a visitor token,
   * for the visitor at `address` only (the budgets count visitors by address, so one solved check
   * must not serve others). The challenge must have been solved on a site the key allows: the
   * provider names the page's host, and a check solved elsewhere is refused.
   */
  async admitVisitor(key: AuthenticatedKey, challengeToken: string, address: string, selfOrigin?: string): Promise<{ visitorToken: string; expiresAt: string }> {
    if (!this.botCheck) throw new AppError('NOT_FOUND', 'This server has no bot check: requests need no visitor token');
    const { hostname } = await this.botCheck.verify(challengeToken, address);
    const ownHost = selfOrigin === undefined ? undefined : parseOrigin(selfOrigin)?.host;
    if (hostname === undefined || !(hostAllowed(key.allowedOrigins, hostname) || (ownHost !== undefined && hostname.toLowerCase() === ownHost))) {
      throw new AppError(
        'FORBIDDEN',
        hostname === undefined
          ? 'The bot check provider did not say which site the challenge was solved on: reload the page and try again'
          : `The bot check was solved on ${hostname.slice(0, 200)}, which is not among the key's allowed origins`,
      );
    }
    const { token, expiresAt } = await this.tokens.issue(key.id, address);
    return { visitorToken: token, expiresAt: expiresAt.toISOString() };
  }

  /** With a bot check configured, refuses a request of a publishable key without a valid visitor token given to this visitor. */
  async checkVisitor(key: AuthenticatedKey, visitorToken: string | undefined, address: string): Promise<void> {
    if (!this.botCheck) return;
    if (visitorToken === undefined || !(await this.tokens.verify(visitorToken, key.id, address))) {
      throw new AppError(
        'UNAUTHORIZED',
        'Complete the bot check first: this request carries no valid visitor token (X-Kb-Visitor) for this visitor (a token is good for the address it was given to)',
      );
    }
  }
}
