import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Retries a job list can show: `max_attempts` (the attempts its queue gives it) and
 * `next_attempt_at` (when a job waiting after a transient failure runs again). `error` now also
 * holds the last failure of a job that is still being retried.
 */
export const jobRetriesMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`alter table ingestion_jobs
      add column max_attempts integer,
      add column next_attempt_at timestamptz`.execute(db);
  },
};
