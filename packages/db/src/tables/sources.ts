import type { ColumnType, Generated, JSONColumnType } from 'kysely';

/** Figures of one sync, by page. */
export interface SourceSyncStats {
  discovered: number;
  fetched: number;
  unchanged: number;
  updated: number;
  removed: number;
  failed: number;
}

export type SourceSyncStatus = 'done' | 'partial' | 'failed';

export interface SourcesTable {
  id: Generated<string>;
  /** `website`, ...: what `settings` describes. */
  kind: string;
  name: string;
  /** The namespace its documents go to. */
  namespace: string;
  settings: JSONColumnType<Record<string, unknown>, string, string>;
  /** Synced every this many minutes; null: on demand only. */
  schedule_minutes: number | null;
  next_sync_at: Date | null;
  /** Syncs started so far; a page row's `last_sync` names the sync that last saw it. */
  sync_count: Generated<number>;
  last_sync_job_id: string | null;
  last_sync_status: SourceSyncStatus | null;
  last_sync_error: string | null;
  last_sync_started_at: Date | null;
  last_sync_finished_at: Date | null;
  last_sync_stats: JSONColumnType<Partial<SourceSyncStats>, string | undefined, string>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** `ok` stored (or unchanged), `failed` (kept as it was), `removed` (gone from the site), `duplicate` (another URL's page), `excluded` (robots.txt or scope). */
export type SourcePageStatus = 'ok' | 'failed' | 'removed' | 'duplicate' | 'excluded';

export interface SourcePagesTable {
  source_id: string;
  /** The page's URL as discovered (without fragment). */
  url: string;
  document_id: string | null;
  /** Where it led: after redirects, or its canonical link. */
  final_url: string | null;
  status: SourcePageStatus;
  /** Why it failed or was left out. */
  reason: string | null;
  http_status: number | null;
  etag: string | null;
  last_modified: string | null;
  /** SHA-256 of the fetched body: an unchanged body is not converted or embedded again. */
  body_hash: string | null;
  sitemap_lastmod: string | null;
  /** Listed by the sitemap in the sync that last saw it. */
  in_sitemap: Generated<boolean>;
  /** The in-scope links it had, so a page answered 304 still leads on. */
  links: JSONColumnType<string[] | null, string | null, string | null>;
  /** Syncs running it was missing from a complete discovery. */
  missing_syncs: Generated<number>;
  last_sync: number;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
