import { sql, type Kysely, type Migration } from 'kysely';

/**
 * A B-tree index entry holds at most 2,704 bytes, and a slug or folder the API accepts may be
 * longer (1,000 and 4,096 characters, up to 4 bytes each): such a document could not be stored.
 * Slugs stay unique per namespace through their MD5 (the slug itself is compared too); folders
 * are only ever compared whole, which a hash index serves at any length.
 */
export const longTextKeysMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`create unique index documents_namespace_slug_md5_key on documents (namespace, md5(slug))`.execute(db);
    await sql`alter table documents drop constraint documents_namespace_slug_key`.execute(db);
    await sql`drop index documents_folder_idx`.execute(db);
    await sql`create index documents_folder_idx on documents using hash (folder) where folder is not null`.execute(db);
  },
};
