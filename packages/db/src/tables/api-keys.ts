import type { ColumnType, Generated } from 'kysely';

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
}
