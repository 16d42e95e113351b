import type { ColumnType, Generated, JSONColumnType } from 'kysely';

export interface DocumentsTable {
  id: Generated<string>;
  namespace: string;
  slug: string;
  title: string;
  metadata: JSONColumnType<Record<string, unknown>, Record<string, unknown> | string, Record<string, unknown> | string>;
  content_hash: string;
  chunk_count: Generated<number>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
