import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The query log behind knowledge gaps: each search and chat question with the best cosine
 * similarity its retrieval found (null: nothing found), kept for KB_QUERY_LOG_DAYS. `normalized`
 * groups repeats; `api_key_id` names the caller's key (never the key itself).
 */
export const queryLogMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`create table query_log (
      id uuid primary key default gen_random_uuid(),
      kind text not null check (kind in ('search', 'chat')),
      query text not null,
      normalized text not null,
      namespaces jsonb not null default '[]'::jsonb,
      best_score double precision,
      api_key_id uuid,
      created_at timestamptz not null
    )`.execute(db);
    await sql`create index query_log_created_idx on query_log (created_at)`.execute(db);
    await sql`create index query_log_normalized_idx on query_log (normalized, created_at)`.execute(db);
  },
};
