import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The statistics of the lexical ranking, kept as chunks are written and removed instead of
 * counted on a search: `corpus_stats` (one row: chunks, documents that have chunks, the sum of
 * their token counts) and `term_stats` (each full-text lexeme's chunk frequency, as the chunks'
 * search_tsv holds it). Triggers on chunks update both in the statement's own transaction, so
 * every write path (ingestion, re-ingestion, deletes cascading from documents, parent chunks or
 * namespaces, bulk loads) keeps them exact, on PostgreSQL and the embedded store alike.
 *
 * Every trigger updates the corpus_stats row first: its row lock orders the writers of term_stats
 * (a transaction holds it from its first chunk write to its commit), so two transactions never
 * wait for each other's term rows in opposite orders (no deadlocks), and a count read after it is
 * current.
 */
export const corpusStatisticsMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    await sql`create table corpus_stats (
      id boolean primary key default true check (id),
      chunks bigint not null,
      documents bigint not null,
      tokens bigint not null
    )`.execute(db);
    await sql`create table term_stats (
      term text primary key,
      chunks integer not null
    )`.execute(db);
    // Terms no chunk holds any more are found here, not by reading the table.
    await sql`create index term_stats_unused_idx on term_stats (term) where chunks <= 0`.execute(db);
    await sql`insert into corpus_stats (chunks, documents, tokens)
      select count(*), count(distinct document_id), coalesce(sum(token_count), 0) from chunks`.execute(db);
    await sql`insert into term_stats (term, chunks)
      select lexeme, count(*) from chunks, unnest(search_tsv) group by lexeme`.execute(db);

    // Rows added: counts up, terms up, documents that had no chunks before this statement.
    await sql`create function chunks_stats_added() returns trigger language plpgsql as $$
      begin
        update corpus_stats set chunks = chunks + a.n, tokens = tokens + a.t
        from (select count(*) as n, coalesce(sum(token_count), 0) as t from added_chunks) a;
        update corpus_stats set documents = documents + (
          select count(*) from (select document_id, count(*) as k from added_chunks group by document_id) d
          where (select count(*) from chunks c where c.document_id = d.document_id) = d.k);
        insert into term_stats (term, chunks)
          select lexeme, count(*) from added_chunks, unnest(search_tsv) group by lexeme order by lexeme
          on conflict (term) do update set chunks = term_stats.chunks + excluded.chunks;
        return null;
      end $$`.execute(db);
    // Rows removed: counts down, terms down (a term in no chunk is dropped), documents left without chunks.
    await sql`create function chunks_stats_removed() returns trigger language plpgsql as $$
      begin
        update corpus_stats set chunks = chunks - r.n, tokens = tokens - r.t
        from (select count(*) as n, coalesce(sum(token_count), 0) as t from removed_chunks) r;
        update corpus_stats set documents = documents - (
          select count(*) from (select distinct document_id from removed_chunks) d
          where not exists (select from chunks c where c.document_id = d.document_id));
        update term_stats t set chunks = t.chunks - r.k
        from (select lexeme, count(*) as k from removed_chunks, unnest(search_tsv) group by lexeme) r
        where t.term = r.lexeme;
        delete from term_stats where chunks <= 0;
        return null;
      end $$`.execute(db);
    // A chunk whose text or document changes in place (no write path does so today): removed, then added.
    await sql`create function chunks_stats_changed() returns trigger language plpgsql as $$
      begin
        update corpus_stats set chunks = chunks, tokens = tokens - old.token_count + new.token_count;
        update corpus_stats set documents = documents
          - (case when old.document_id <> new.document_id
                   and not exists (select from chunks where document_id = old.document_id) then 1 else 0 end)
          + (case when old.document_id <> new.document_id
                   and (select count(*) from chunks where document_id = new.document_id) = 1 then 1 else 0 end);
        insert into term_stats (term, chunks) select lexeme, 1 from unnest(new.search_tsv) order by lexeme
          on conflict (term) do update set chunks = term_stats.chunks + 1;
        update term_stats set chunks = chunks - 1 where term in (select lexeme from unnest(old.search_tsv));
        delete from term_stats where chunks <= 0;
        return null;
      end $$`.execute(db);
    await sql`create trigger chunks_stats_insert after insert on chunks
      referencing new table as added_chunks for each statement execute function chunks_stats_added()`.execute(db);
    await sql`create trigger chunks_stats_delete after delete on chunks
      referencing old table as removed_chunks for each statement execute function chunks_stats_removed()`.execute(db);
    await sql`create trigger chunks_stats_update after update of heading_path, content, token_count, document_id on chunks
      for each row when (old.search_tsv is distinct from new.search_tsv or old.token_count <> new.token_count
                         or old.document_id <> new.document_id)
      execute function chunks_stats_changed()`.execute(db);
    // Emptying the table empties the statistics.
    await sql`create function chunks_stats_truncated() returns trigger language plpgsql as $$
      begin
        update corpus_stats set chunks = 0, documents = 0, tokens = 0;
        delete from term_stats;
        return null;
      end $$`.execute(db);
    await sql`create trigger chunks_stats_truncate after truncate on chunks
      for each statement execute function chunks_stats_truncated()`.execute(db);
  },
};
