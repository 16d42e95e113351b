import type { ColumnType } from 'kysely';

export interface FaqCacheTable {
  cache_key: string;
  query: string;
  scope: string;
  language: string;
  content: string;
  created_at: ColumnType<Date, Date | undefined, Date>;
  expires_at: Date;
}
