import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Sources: stored descriptions of where documents come from (a website, ...), synced on demand
 * and on a schedule. `source_pages` holds what each sync learnt of each page (validators for
 * conditional requests, the hash of its body, its links, its outcome and the reason of a
 * failure), so a sync is incremental and its failures can be listed. Documents remember their
 * source. At most one sync of a source is pending or running at a time: the partial unique index
 * on the jobs table makes that atomic across any number of servers and workers.
 */
export const sourcesMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`create table sources (
      id uuid primary key default gen_random_uuid(),
      kind text not null,
      name text not null,
      namespace text not null,
      settings jsonb not null,
      schedule_minutes integer,
      next_sync_at timestamptz,
      sync_count integer not null default 0,
      last_sync_job_id uuid,
      last_sync_status text,
      last_sync_error text,
      last_sync_started_at timestamptz,
      last_sync_finished_at timestamptz,
      last_sync_stats jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
    await sql`create index sources_created_idx on sources (created_at desc, id desc)`.execute(db);
    await sql`create index sources_next_sync_idx on sources (next_sync_at) where schedule_minutes is not null`.execute(db);
    await sql`create table source_pages (
      source_id uuid not null references sources(id) on delete cascade,
      url text not null,
      document_id uuid references documents(id) on delete set null,
      final_url text,
      status text not null,
      reason text,
      http_status integer,
      etag text,
      last_modified text,
      body_hash text,
      sitemap_lastmod text,
      in_sitemap boolean not null default false,
      links jsonb,
      missing_syncs integer not null default 0,
      last_sync integer not null,
      updated_at timestamptz not null default now(),
      primary key (source_id, url)
    )`.execute(db);
    await sql`create index source_pages_status_idx on source_pages (source_id, last_sync, status)`.execute(db);
    await sql`alter table documents add column source_id uuid references sources(id) on delete set null`.execute(db);
    await sql`create index documents_source_idx on documents (source_id) where source_id is not null`.execute(db);
    await sql`create unique index ingestion_jobs_one_source_sync_idx on ingestion_jobs ((payload->>'sourceId'))
      where type = 'source-sync' and status in ('pending', 'running')`.execute(db);
  },
};
