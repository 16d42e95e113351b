import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DB } from '@kb/db';
import { sql, type Kysely } from 'kysely';
import { addressSubject } from '../faq/limits.ts';

/** The visitor a token is for, as the budgets count visitors (the address; IPv6 by its /64), digested: tokens do not carry addresses. */
function visitorDigest(address: string): string {
  return createHash('sha256').update(addressSubject(address)).digest('base64url').slice(0, 22);
}

/**
 * Visitor tokens: what a visitor earns by passing the bot check once, so that the questions of a
 * conversation need no challenge each. A token names the publishable key it was earned for, the
 * visitor it was given to (what the per-visitor budgets count: the client address) and when it
 * lapses, signed (HMAC-SHA256) with a secret the store keeps, so that every server
 * process of a deployment accepts the tokens any of them gave.
 */
export class VisitorTokens {
  private secret: Promise<Buffer> | undefined;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: { ttlMs: number; now?: () => number },
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The store's signing secret, made by the first process that needs it. */
  private key(): Promise<Buffer> {
    this.secret ??= (async () => {
      await sql`
        insert into store_meta (key, value) values ('visitor_tokens', ${JSON.stringify({ secret: randomBytes(32).toString('base64') })}::jsonb)
        on conflict (key) do nothing`.execute(this.db);
      const row = await this.db.selectFrom('store_meta').select('value').where('key', '=', 'visitor_tokens').executeTakeFirstOrThrow();
      const value = (typeof row.value === 'string' ? JSON.parse(row.value) : row.value) as { secret: string };
      return Buffer.from(value.secret, 'base64');
    })();
    this.secret.catch(() => (this.secret = undefined));
    return this.secret;
  }

  private async sign(payload: string): Promise<string> {
    return createHmac('sha256', await this.key()).update(payload).digest('base64url');
  }

  /** A token for the visitor at `address` of the key, and when it lapses. */
  async issue(keyId: string, address: string): Promise<{ token: string; expiresAt: Date }> {
    const expiresAt = new Date(this.now() + this.options.ttlMs);
    const payload = Buffer.from(JSON.stringify({ k: keyId, v: visitorDigest(address), x: expiresAt.getTime(), n: randomBytes(9).toString('base64url') })).toString('base64url');
    return { token: `${payload}.${await this.sign(payload)}`, expiresAt };
  }

  /** Whether a token is one this deployment gave for the key to the visitor at `address`, and has not lapsed. */
  async verify(token: string, keyId: string, address: string): Promise<boolean> {
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined || token.length > 512) return false;
    const expected = Buffer.from(await this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { k?: unknown; v?: unknown; x?: unknown };
      return claims.k === keyId && claims.v === visitorDigest(address) && typeof claims.x === 'number' && claims.x > this.now();
    } catch {
      return false;
    }
  }
}
