import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Documents as a resource of their own: their Markdown as ingested (`content`; null for documents
 * stored before this migration, whose content is read back from their sections), their canonical
 * link (`url`, from the metadata's http(s) `url`, filled in here for documents already stored),
 * and the folder a `kb ingest-folder` run took them from (`folder`), which `--prune` reads.
 */
export const documentRecordsMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`alter table documents add column content text`.execute(db);
    await sql`alter table documents add column url text`.execute(db);
    await sql`alter table documents add column folder text`.execute(db);
    await sql`update documents set url = metadata->>'url' where metadata->>'url' ~* '^https?://[^[:space:]]+$'`.execute(db);
    await sql`create index documents_updated_idx on documents (updated_at desc, id)`.execute(db);
    await sql`create index documents_folder_idx on documents (folder) where folder is not null`.execute(db);
  },
};
