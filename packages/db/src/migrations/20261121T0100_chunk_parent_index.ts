import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Deleting a document's parent chunks cascades to chunks by parent_id: without an index every
 * deleted parent made PostgreSQL scan the whole chunks table.
 */
export const chunkParentIndexMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`create index if not exists chunks_parent_idx on chunks (parent_id)`.execute(db);
  },
};
