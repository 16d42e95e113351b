import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Chat turns. A conversation hands out turn numbers atomically (`next_turn`, taken under the
 * row's lock), and a question and its answer share their turn: ordering by (turn, role) keeps
 * each answer after its own question when two requests on one conversation run at once.
 * `interrupted` marks an answer cut short by a disconnect or a failure.
 */
export const conversationTurnsMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`alter table conversations add column next_turn integer not null default 0`.execute(db);
    await sql`alter table messages add column turn integer not null default 0`.execute(db);
    await sql`alter table messages add column interrupted boolean not null default false`.execute(db);
    await sql`drop index if exists messages_conversation_idx`.execute(db);
    await sql`create index messages_conversation_turn_idx on messages (conversation_id, turn, role desc)`.execute(db);
    await sql`create index conversations_api_key_idx on conversations (api_key_id)`.execute(db);
  },
};
