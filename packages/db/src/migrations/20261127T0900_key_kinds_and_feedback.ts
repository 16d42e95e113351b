import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Keys that say what they may do, and feedback on answers.
 *
 * - `api_keys.kind`: `secret` (every key so far) or `publishable` (shown whole in listings, so
 *   `publishable_key` holds it; used from web pages, bound to `allowed_origins`, per-visitor
 *   limits and a daily budget of answers). `namespaces`: the namespaces the key may read and
 *   write; null is all of them (every existing key).
 * - `message_feedback`: the last vote on an answer, by the key whose conversation it is, with its
 *   question as the query log groups repeats (knowledge gaps list thumbs-down questions).
 */
export const keyKindsAndFeedbackMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`alter table api_keys
      add column kind text not null default 'secret' check (kind in ('secret', 'publishable')),
      add column namespaces jsonb,
      add column publishable_key text,
      add column allowed_origins jsonb,
      add column visitor_rate_limit_rpm integer check (visitor_rate_limit_rpm >= 0),
      add column visitor_rate_limit_rpd integer check (visitor_rate_limit_rpd >= 0),
      add column daily_answer_limit integer check (daily_answer_limit >= 0)`.execute(db);

    await sql`create table message_feedback (
      message_id uuid primary key references messages(id) on delete cascade,
      conversation_id uuid not null references conversations(id) on delete cascade,
      api_key_id uuid references api_keys(id) on delete set null,
      rating text not null check (rating in ('up', 'down')),
      reasons jsonb not null default '[]'::jsonb,
      note text,
      question_normalized text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
    await sql`create index message_feedback_updated_idx on message_feedback (updated_at desc)`.execute(db);
    await sql`create index message_feedback_conversation_idx on message_feedback (conversation_id)`.execute(db);
    await sql`create index message_feedback_question_idx on message_feedback (question_normalized) where rating = 'down'`.execute(db);
  },
};
