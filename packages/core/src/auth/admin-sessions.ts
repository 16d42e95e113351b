import { createHmac, randomBytes } from 'node:crypto';
import type { DB } from '@kb/db';
import type { Kysely } from 'kysely';
import { AppError } from '../errors.ts';
import { digestsEqual, sha256Hex } from '../keys/secret.ts';

export const SESSION_COOKIE = 'kb_session';

/**
 * Admin sessions: a password login (KB_ADMIN_PASSWORD) yields a random token kept in an
 * HttpOnly cookie. Only a digest of the token is stored, in the database, so every server process
 * recognises the session and logout ends it everywhere. The digest is keyed with the admin
 * password (HMAC-SHA256): once the password changes, no session made under the old one matches,
 * and the stored digests, without their tokens, tell nothing about the password.
 */
export class AdminSessions {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: { adminPassword?: string; ttlMs: number },
  ) {}

  get enabled(): boolean {
    return this.options.adminPassword !== undefined;
  }

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  async login(password: string): Promise<{ token: string; expiresAt: Date }> {
    if (!this.options.adminPassword) {
      throw new AppError('SERVICE_UNAVAILABLE', 'Admin login is not configured: set KB_ADMIN_PASSWORD');
    }
    if (!digestsEqual(sha256Hex(password), sha256Hex(this.options.adminPassword))) {
      throw new AppError('UNAUTHORIZED', 'Wrong admin password');
    }
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.options.ttlMs);
    await this.db.insertInto('admin_sessions').values({ token_hash: this.digest(token), expires_at: expiresAt }).execute();
    // Expired sessions are cleared as new ones are made.
    await this.db.deleteFrom('admin_sessions').where('expires_at', '<', new Date()).execute();
    return { token, expiresAt };
  }

  async verify(token: string): Promise<boolean> {
    if (!this.enabled || !/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
    const row = await this.db
      .selectFrom('admin_sessions')
      .select('token_hash')
      .where('token_hash', '=', this.digest(token))
      .where('expires_at', '>', new Date())
      .executeTakeFirst();
    return row !== undefined;
  }

  async logout(token: string): Promise<void> {
    if (!this.enabled) return;
    await this.db.deleteFrom('admin_sessions').where('token_hash', '=', this.digest(token)).execute();
  }

  /** Ends every admin session (of every process, under any password); returns how many there were. */
  async endAll(): Promise<number> {
    const result = await this.db.deleteFrom('admin_sessions').executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  private digest(token: string): string {
    return createHmac('sha256', this.options.adminPassword ?? '').update(token).digest('hex');
  }
}
