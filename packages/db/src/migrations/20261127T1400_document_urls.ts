import { sql, type Kysely, type Migration } from 'kysely';

/** Documents are looked up by their canonical URL (an agent fetching the page it was given). */
export const documentUrlsMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`create index documents_url_idx on documents (url) where url is not null`.execute(db);
  },
};
