import { sql, type Kysely, type Migration } from 'kysely';

/** The page of its source a chunk starts on (a PDF's), for citations that open the page; null for other documents. */
export const chunkPagesMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    // Nullable without a default: no table rewrite, existing chunks have no page.
    await sql`alter table chunks add column page integer`.execute(db);
  },
};
