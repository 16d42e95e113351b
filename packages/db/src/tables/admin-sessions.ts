import type { ColumnType } from 'kysely';

export interface AdminSessionsTable {
  /** Hex SHA-256 of the session token kept in the cookie. */
  token_hash: string;
  created_at: ColumnType<Date, never, never>;
  expires_at: Date;
}
