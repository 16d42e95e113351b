import type { ColumnType, JSONColumnType } from 'kysely';

/** A document an FAQ was made from, with its content hash at the time. */
export interface FaqCacheSource {
  documentId: string;
  title: string;
  slug: string;
  namespace: string;
  url?: string;
  contentHash: string;
}

export interface FaqCacheTable {
  /** Hash of the normalised topic, scope and language. */
  cache_key: string;
  /** The topic as first asked. */
  query: string;
  scope: string;
  language: string;
  content: string;
  sources: JSONColumnType<FaqCacheSource[], string, string>;
  /** What made the entry (`claude:<model>`, `extractive:<version>`). */
  generator: ColumnType<string, string | undefined, string>;
  /** When the FAQ was made. */
  created_at: ColumnType<Date, Date | undefined, Date>;
  expires_at: Date;
}

/** A lease on making one FAQ entry (see the 20261124 migration). */
export interface FaqGenerationsTable {
  cache_key: string;
  owner: string;
  expires_at: Date;
}
