import type { ColumnType } from 'kysely';

export interface NamespacesTable {
  id: string;
  created_at: ColumnType<Date, never, never>;
}
