import { sql, type Kysely, type Migration } from 'kysely';

/**
 * What the query log knows of a chat question's answer: `answered` false when the answer found
 * nothing to draw on (such questions lead the knowledge gaps), null for searches and answers that
 * failed; `standalone`, a follow-up's question as retrieval understood it (completed from the
 * conversation), null when it is the question as asked.
 */
export const queryLogAnswersMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`alter table query_log add column answered boolean, add column standalone text`.execute(db);
  },
};
