import { randomBytes } from 'node:crypto';
import type { DB } from '@kb/db';
import type { Kysely } from 'kysely';
import { AppError } from '../errors.ts';
import { digestsEqual, sha256Hex } from '../keys/secret.ts';

export const SESSION_COOKIE = 'kb_session';

/**
 * Admin sessions: a password login (KB_ADMIN_PASSWORD) yields a random token kept in an
 * HttpOnly cookie. Only the token's hash is stored, in the database, so every server process
 * recognises the session and logout ends it everywhere.
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
    await this.db.insertInto('admin_sessions').values({ token_hash: sha256Hex(token), expires_at: expiresAt }).execute();
    // Expired sessions are cleared as new ones are made.
    await this.db.deleteFrom('admin_sessions').where('expires_at', '<', new Date()).execute();
    return { token, expiresAt };
  }

  async verify(token: string): Promise<boolean> {
    if (!this.enabled || !/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
    const row = await this.db
      .selectFrom('admin_sessions')
      .select('token_hash')
      .where('token_hash', '=', sha256Hex(token))
      .where('expires_at', '>', new Date())
      .executeTakeFirst();
    return row !== undefined;
  }

  async logout(token: string): Promise<void> {
    await this.db.deleteFrom('admin_sessions').where('token_hash', '=', sha256Hex(token)).execute();
  }
}
