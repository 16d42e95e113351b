import type { DB } from '@kb/db';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ApiKeyRow } from './types.ts';

export type ApiKeyRecord = Selectable<DB['api_keys']>;

export class ApiKeysRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insert(values: {
    label: string;
    keyHash: string;
    keyPrefix: string;
    admin: boolean;
    rateLimitRpm: number | null;
    rateLimitRpd: number | null;
  }): Promise<ApiKeyRecord> {
    return this.db
      .insertInto('api_keys')
      .values({
        label: values.label,
        key_hash: values.keyHash,
        key_prefix: values.keyPrefix,
        is_admin: values.admin,
        rate_limit_rpm: values.rateLimitRpm,
        rate_limit_rpd: values.rateLimitRpd,
        last_used_at: null,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.db.selectFrom('api_keys').selectAll().orderBy('created_at', 'desc').orderBy('id').execute();
  }

  findById(id: string): Promise<ApiKeyRecord | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
    return this.db
      .selectFrom('api_keys')
      .select(['id', 'label', 'key_hash', 'is_admin', 'rate_limit_rpm', 'rate_limit_rpd', 'revoked_at'])
      .where('key_hash', '=', keyHash)
      .executeTakeFirst();
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
