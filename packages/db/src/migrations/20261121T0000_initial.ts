import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The whole schema of the service. Frozen: later changes go in new migrations.
 * The embedding column's dimension is a property of the store, chosen when it is created
 * and recorded in store_meta; `kb reindex` changes it.
 */
export function initialMigration(embeddingDimension: number): Migration {
  return {
    // Migrations are frozen against the schema of their time, not the current table types.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>) {
      await sql`create extension if not exists vector`.execute(db);

      await sql`create table store_meta (
        key text primary key,
        value jsonb not null
      )`.execute(db);
      await sql`insert into store_meta (key, value) values ('embedding', ${JSON.stringify({ dimension: embeddingDimension, model: null })}::jsonb)`.execute(db);

      await sql`create table namespaces (
        id text primary key,
        created_at timestamptz not null default now()
      )`.execute(db);

      await sql`create table documents (
        id uuid primary key default gen_random_uuid(),
        namespace text not null references namespaces(id),
        slug text not null,
        title text not null,
        metadata jsonb not null default '{}'::jsonb,
        content_hash text not null,
        chunk_count integer not null default 0,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint documents_namespace_slug_key unique (namespace, slug)
      )`.execute(db);

      await sql`create table parent_chunks (
        id uuid primary key default gen_random_uuid(),
        document_id uuid not null references documents(id) on delete cascade,
        ordinal integer not null,
        heading_path text not null,
        content text not null
      )`.execute(db);
      await sql`create index parent_chunks_document_idx on parent_chunks (document_id, ordinal)`.execute(db);

      await sql`create table chunks (
        id uuid primary key default gen_random_uuid(),
        document_id uuid not null references documents(id) on delete cascade,
        parent_id uuid references parent_chunks(id) on delete cascade,
        namespace text not null,
        ordinal integer not null,
        heading_path text not null,
        content text not null,
        token_count integer not null,
        embedding ${sql.raw(`vector(${embeddingDimension})`)},
        search_tsv tsvector generated always as (
          to_tsvector('english', heading_path || ' ' || content)
        ) stored
      )`.execute(db);
      await sql`create index chunks_document_idx on chunks (document_id, ordinal)`.execute(db);
      await sql`create index chunks_namespace_idx on chunks (namespace)`.execute(db);
      // A full-precision HNSW index holds at most 2,000 dimensions; wider stores get theirs once
      // the migrations are done (ensureVectorIndex, which also rebuilds this one as the current
      // version defines it).
      if (embeddingDimension <= 2000) {
        await sql`create index chunks_embedding_idx on chunks using hnsw (embedding vector_cosine_ops)`.execute(db);
      }
      await sql`create index chunks_search_tsv_idx on chunks using gin (search_tsv)`.execute(db);

      await sql`create table api_keys (
        id uuid primary key default gen_random_uuid(),
        label text not null,
        key_hash text not null unique,
        key_prefix text not null,
        is_admin boolean not null default false,
        rate_limit_rpm integer check (rate_limit_rpm >= 0),
        rate_limit_rpd integer check (rate_limit_rpd >= 0),
        request_count bigint not null default 0,
        last_used_at timestamptz,
        created_at timestamptz not null default now(),
        revoked_at timestamptz
      )`.execute(db);

      await sql`create table admin_sessions (
        token_hash text primary key,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null
      )`.execute(db);

      await sql`create table conversations (
        id uuid primary key default gen_random_uuid(),
        api_key_id uuid references api_keys(id) on delete set null,
        language text,
        sources jsonb not null default '[]'::jsonb,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`.execute(db);
      await sql`create index conversations_created_idx on conversations (created_at desc)`.execute(db);
      await sql`create index conversations_language_idx on conversations (language)`.execute(db);
      await sql`create index conversations_sources_idx on conversations using gin (sources)`.execute(db);

      await sql`create table messages (
        id uuid primary key default gen_random_uuid(),
        conversation_id uuid not null references conversations(id) on delete cascade,
        role text not null check (role in ('user', 'assistant')),
        content text not null,
        sources jsonb not null default '[]'::jsonb,
        created_at timestamptz not null default clock_timestamp()
      )`.execute(db);
      await sql`create index messages_conversation_idx on messages (conversation_id, created_at)`.execute(db);

      await sql`create table ingestion_jobs (
        id uuid primary key default gen_random_uuid(),
        type text not null,
        status text not null default 'pending' check (status in ('pending', 'running', 'done', 'failed')),
        payload jsonb not null,
        progress jsonb not null default '{"total":0,"done":0,"skipped":0,"failed":0}'::jsonb,
        attempts integer not null default 0,
        error text,
        state jsonb not null default '{}'::jsonb,
        created_at timestamptz not null default now(),
        started_at timestamptz,
        completed_at timestamptz,
        updated_at timestamptz not null default now()
      )`.execute(db);
      await sql`create index ingestion_jobs_created_idx on ingestion_jobs (created_at desc)`.execute(db);
      await sql`create index ingestion_jobs_status_idx on ingestion_jobs (status)`.execute(db);

      await sql`create table faq_cache (
        cache_key text primary key,
        query text not null,
        scope text not null,
        language text not null,
        content text not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null
      )`.execute(db);
      await sql`create index faq_cache_expires_idx on faq_cache (expires_at)`.execute(db);
    },
  };
}
