import { sql, type Kysely, type Migration } from 'kysely';

/**
 * FAQ entries remember the documents they were made from, with the content hash each had, so an
 * entry whose document changed or was deleted is made again; and what made them (the model, or
 * the extractive writer's version), so a change of writer makes them again too. `created_at` is
 * when the FAQ was made (`generatedAt`).
 *
 * `faq_generations` holds a short, renewed lease per entry being made: concurrent misses for one
 * entry, in any server process, wait for the holder's result instead of making it again. A lease
 * row rather than an advisory lock, because a session lock pins a pooled connection for the
 * whole generation (seconds with a model), and waiting requests would pin theirs.
 */
export const faqSourcesMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`alter table faq_cache add column sources jsonb not null default '[]'::jsonb`.execute(db);
    await sql`alter table faq_cache add column generator text not null default ''`.execute(db);
    await sql`create table faq_generations (
      cache_key text primary key,
      owner text not null,
      expires_at timestamptz not null
    )`.execute(db);
  },
};
