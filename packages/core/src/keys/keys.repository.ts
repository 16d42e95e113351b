import type { DB } from '@kb/db';
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';

export type ApiKeyRecord = Selectable<DB['api_keys']>;

/** A key's row as written: what creation and updates set. */
export interface ApiKeyValues {
  label: string;
  kind: 'secret' | 'publishable';
  keyHash: string;
  keyPrefix: string;
  admin: boolean;
  namespaces: readonly string[] | null;
  rateLimitRpm: number | null;
  rateLimitRpd: number | null;
  publishableKey: string | null;
  allowedOrigins: readonly string[] | null;
  visitorRateLimitRpm: number | null;
  visitorRateLimitRpd: number | null;
  dailyAnswerLimit: number | null;
}

const jsonOrNull = (value: readonly string[] | null | undefined): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

/** JSON columns come back parsed from PostgreSQL and as text from some drivers. */
export function jsonList(value: unknown): string[] | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as string[];
}

export class ApiKeysRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insert(values: ApiKeyValues): Promise<ApiKeyRecord> {
    return this.db
      .insertInto('api_keys')
      .values({
        label: values.label,
        kind: values.kind,
        key_hash: values.keyHash,
        key_prefix: values.keyPrefix,
        is_admin: values.admin,
        namespaces: jsonOrNull(values.namespaces),
        rate_limit_rpm: values.rateLimitRpm,
        rate_limit_rpd: values.rateLimitRpd,
        publishable_key: values.publishableKey,
        allowed_origins: jsonOrNull(values.allowedOrigins),
        visitor_rate_limit_rpm: values.visitorRateLimitRpm,
        visitor_rate_limit_rpd: values.visitorRateLimitRpd,
        daily_answer_limit: values.dailyAnswerLimit,
        last_used_at: null,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Changes the given fields of a key that is not revoked; returns its row, or undefined. */
  async update(
    id: string,
    values: Partial<Pick<ApiKeyValues, 'label' | 'namespaces' | 'rateLimitRpm' | 'rateLimitRpd' | 'allowedOrigins' | 'visitorRateLimitRpm' | 'visitorRateLimitRpd' | 'dailyAnswerLimit'>>,
  ): Promise<ApiKeyRecord | undefined> {
    const set: Updateable<DB['api_keys']> = {};
    if (values.label !== undefined) set.label = values.label;
    if (values.namespaces !== undefined) set.namespaces = jsonOrNull(values.namespaces);
    if (values.rateLimitRpm !== undefined) set.rate_limit_rpm = values.rateLimitRpm;
    if (values.rateLimitRpd !== undefined) set.rate_limit_rpd = values.rateLimitRpd;
    if (values.allowedOrigins !== undefined) set.allowed_origins = jsonOrNull(values.allowedOrigins);
    if (values.visitorRateLimitRpm !== undefined) set.visitor_rate_limit_rpm = values.visitorRateLimitRpm;
    if (values.visitorRateLimitRpd !== undefined) set.visitor_rate_limit_rpd = values.visitorRateLimitRpd;
    if (values.dailyAnswerLimit !== undefined) set.daily_answer_limit = values.dailyAnswerLimit;
    if (Object.keys(set).length === 0) return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
    return this.db.updateTable('api_keys').set(set).where('id', '=', id).where('revoked_at', 'is', null).returningAll().executeTakeFirst();
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.db.selectFrom('api_keys').selectAll().orderBy('created_at', 'desc').orderBy('id').execute();
  }

  findById(id: string): Promise<ApiKeyRecord | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
  }

  /** The allowed origins of every active publishable key (what CORS preflights are answered for). */
  async activeOrigins(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select('allowed_origins')
      .where('kind', '=', 'publishable')
      .where('revoked_at', 'is', null)
      .execute();
    return rows.flatMap((row) => jsonList(row.allowed_origins) ?? []);
  }

  /**
   * Records, once per store, that the first admin key is being issued: true for the one caller
   * that recorded it (processes starting together on an empty store issue one key between them).
   */
  async claimFirstKey(): Promise<boolean> {
    const claimed = await sql<{ key: string }>`
      insert into store_meta (key, value) values ('first_admin_key', ${JSON.stringify({ issuedAt: new Date().toISOString() })}::jsonb)
      on conflict (key) do nothing
      returning key`.execute(this.db);
    return claimed.rows.length === 1;
  }

  /** Whether the store holds any key at all, revoked ones included. */
  async any(): Promise<boolean> {
    return (await this.db.selectFrom('api_keys').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  /** Marks the key revoked unless it already is; returns the row when this call revoked it. */
  revoke(id: string): Promise<{ id: string } | undefined> {
    return this.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
  }

  async addUsage(entries: Array<{ id: string; count: number; lastUsedAt: Date }>): Promise<void> {
    if (entries.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const entry of entries) {
        await trx
          .updateTable('api_keys')
          .set((eb) => ({
            request_count: eb('request_count', '+', entry.count),
            last_used_at: sql<Date>`greatest(last_used_at, ${entry.lastUsedAt})`,
          }))
          .where('id', '=', entry.id)
          .execute();
      }
    });
  }
}
