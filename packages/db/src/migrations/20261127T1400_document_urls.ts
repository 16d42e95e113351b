import { sql, type Kysely, type Migration } from 'kysely';

/** Documents are looked up by their canonical URL (an agent fetching the page it was given); a hash index, as a URL may be longer than a B-tree entry. */
export const documentUrlsMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`create index documents_url_idx on documents using hash (url) where url is not null`.execute(db);
  },
};
