import type { ColumnType, Generated, JSONColumnType } from 'kysely';

export interface DocumentsTable {
  id: Generated<string>;
  namespace: string;
  slug: string;
  title: string;
  metadata: JSONColumnType<Record<string, unknown>, Record<string, unknown> | string, Record<string, unknown> | string>;
  content_hash: string;
  /** The Markdown as ingested; null for documents stored before it was kept. */
  content: string | null;
  /** The document's canonical http(s) link, when it has one. */
  url: string | null;
  /** The folder (absolute path) of the `kb ingest-folder` run that last wrote or confirmed it. */
  folder: string | null;
  /** The source (a synced website, ...) it came from. */
  source_id: ColumnType<string | null, string | null | undefined, string | null>;
  chunk_count: Generated<number>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
