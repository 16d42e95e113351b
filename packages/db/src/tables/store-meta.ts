import type { JSONColumnType } from 'kysely';

/** Facts about the store itself, such as the embedding model and dimension it was built with. */
export interface StoreMetaTable {
  key: string;
  value: JSONColumnType<Record<string, unknown>, string, string>;
}
