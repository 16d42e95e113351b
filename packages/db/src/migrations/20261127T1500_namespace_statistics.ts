import { sql, type Kysely, type Migration } from 'kysely';

/**
 * How many documents each namespace holds, kept as documents are written and removed instead of
 * counted on every page of the documents list: `namespace_stats` (namespace, documents).
 * Triggers on documents update it in the statement's own transaction, on PostgreSQL and the
 * embedded store alike. Like the triggers of the corpus statistics, each updates the
 * corpus_stats row first, so the writers of both tables take their row locks in one order.
 */
export const namespaceStatisticsMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`create table namespace_stats (
      namespace text primary key,
      documents bigint not null
    )`.execute(db);
    // No document is written between the count and the triggers (a server of the previous
    // version may still be running): the lock lasts until the migration commits.
    await sql`lock table documents in share row exclusive mode`.execute(db);
    await sql`insert into namespace_stats (namespace, documents)
      select namespace, count(*) from documents group by namespace`.execute(db);

    await sql`create function documents_stats_added() returns trigger language plpgsql as $$
      begin
        update corpus_stats set chunks = chunks;
        insert into namespace_stats (namespace, documents)
          select namespace, count(*) from added_documents group by namespace order by namespace
          on conflict (namespace) do update set documents = namespace_stats.documents + excluded.documents;
        return null;
      end $$`.execute(db);
    await sql`create function documents_stats_removed() returns trigger language plpgsql as $$
      begin
        update corpus_stats set chunks = chunks;
        update namespace_stats s set documents = s.documents - r.n
        from (select namespace, count(*) as n from removed_documents group by namespace) r
        where s.namespace = r.namespace;
        return null;
      end $$`.execute(db);
    await sql`create function documents_stats_moved() returns trigger language plpgsql as $$
      begin
        update corpus_stats set chunks = chunks;
        update namespace_stats set documents = documents - 1 where namespace = old.namespace;
        insert into namespace_stats (namespace, documents) values (new.namespace, 1)
          on conflict (namespace) do update set documents = namespace_stats.documents + 1;
        return null;
      end $$`.execute(db);
    await sql`create function documents_stats_truncated() returns trigger language plpgsql as $$
      begin
        delete from namespace_stats;
        return null;
      end $$`.execute(db);
    await sql`create trigger documents_stats_insert after insert on documents
      referencing new table as added_documents for each statement execute function documents_stats_added()`.execute(db);
    await sql`create trigger documents_stats_delete after delete on documents
      referencing old table as removed_documents for each statement execute function documents_stats_removed()`.execute(db);
    await sql`create trigger documents_stats_update after update of namespace on documents
      for each row when (old.namespace <> new.namespace) execute function documents_stats_moved()`.execute(db);
    await sql`create trigger documents_stats_truncate after truncate on documents
      for each statement execute function documents_stats_truncated()`.execute(db);
  },
};
