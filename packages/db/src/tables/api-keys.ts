import type { ColumnType, Generated, JSONColumnType } from 'kysely';

export interface ApiKeysTable {
  id: Generated<string>;
  label: string;
  /** Hex SHA-256 of the whole secret; the secret itself is never stored. */
  key_hash: string;
  /** The first characters of the secret, for recognising a key in listings. */
  key_prefix: string;
  is_admin: Generated<boolean>;
  rate_limit_rpm: number | null;
  rate_limit_rpd: number | null;
  request_count: ColumnType<string | number, number | undefined, number | string>;
  last_used_at: Date | null;
  created_at: ColumnType<Date, never, never>;
  revoked_at: Date | null;
  kind: Generated<'secret' | 'publishable'>;
  /** Namespaces the key may read and write; null: all. */
  namespaces: JSONColumnType<string[] | null, string | null, string | null>;
  /** A publishable key itself (it is no secret: listings show it); null for a secret key. */
  publishable_key: string | null;
  /** Publishable keys: the web origins that may use it (`https://*.example.com` wildcards). */
  allowed_origins: JSONColumnType<string[] | null, string | null, string | null>;
  /** Publishable keys: questions one visitor (client address) may ask a minute and a day. */
  visitor_rate_limit_rpm: number | null;
  visitor_rate_limit_rpd: number | null;
  /** Publishable keys: answers the key may give a day, across its visitors. */
  daily_answer_limit: number | null;
}
