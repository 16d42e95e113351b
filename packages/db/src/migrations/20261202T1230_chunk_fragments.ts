import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The included fragment a chunk's text comes from (a shared file that a source copies into many
 * pages: see the content package's chunking/fragments.ts), so that search can take a fragment's
 * copies for one passage; null for a page's own text. write_documents (20261202T1108) is
 * defined again with the chunks' fragments as its last argument, the rest as it was.
 */
export const chunkFragmentsMigration: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>) {
    // Nullable without a default: no table rewrite, existing chunks are a page's own text.
    await sql`alter table chunks add column fragment text`.execute(db);
    await sql`drop function write_documents(
        bigint[], uuid[], text[], text[], text[], text[], text[], int[], text[], text[], text[],
        uuid[], int[], int[], text[], text[], uuid[], int[], uuid[], int[], text[], text[], int[], int[], vector[], text[])`.execute(db);
    await sql`create function write_documents(
        p_lock_keys bigint[],
        p_ids uuid[], p_namespaces text[], p_slugs text[], p_titles text[], p_metadata text[], p_hashes text[],
        p_chunk_counts int[], p_contents text[], p_urls text[], p_folders text[],
        p_parent_ids uuid[], p_parent_docs int[], p_parent_ordinals int[], p_parent_heading_paths text[], p_parent_contents text[],
        p_child_ids uuid[], p_child_docs int[], p_child_parent_ids uuid[], p_child_ordinals int[], p_child_heading_paths text[],
        p_child_contents text[], p_child_token_counts int[], p_child_pages int[], p_child_embeddings vector[],
        p_child_lexical_terms text[], p_child_fragments text[])
      returns table (out_ord int, out_id uuid, out_skipped boolean)
      language plpgsql volatile as $$
      declare
        v_ids uuid[];
        v_skipped boolean[];
        v_replaced uuid[];
        v_written uuid[];
        v_expected uuid[];
      begin
        perform pg_advisory_xact_lock(k) from unnest(p_lock_keys) as k order by k;
        select array_agg(coalesce(d.id, t.id) order by t.ord),
               array_agg(coalesce(d.content_hash = t.hash, false) order by t.ord),
               array_remove(array_agg(case when d.content_hash is distinct from t.hash then d.id end), null)
          into v_ids, v_skipped, v_replaced
          from unnest(p_ids, p_namespaces, p_slugs, p_hashes) with ordinality as t(id, namespace, slug, hash, ord)
          left join documents d on d.namespace = t.namespace and md5(d.slug) = md5(t.slug) and d.slug = t.slug;
        if false = any(v_skipped) then
          if cardinality(v_replaced) > 0 then
            delete from chunks where document_id = any(v_replaced);
            delete from parent_chunks where document_id = any(v_replaced);
          end if;
          -- Only namespaces not there yet: ON CONFLICT on a row another open transaction inserted
          -- would wait for that transaction, serialising concurrent writes.
          insert into namespaces (id)
            select distinct n from unnest(p_namespaces) as n
            where not exists (select 1 from namespaces s where s.id = n)
            on conflict (id) do nothing;
          with written as (
            insert into documents (id, namespace, slug, title, metadata, content_hash, chunk_count, content, url, folder)
            select v_ids[t.ord], t.namespace, t.slug, t.title, t.metadata::jsonb, t.hash, t.chunk_count, t.content, t.url, t.folder
            from unnest(p_namespaces, p_slugs, p_titles, p_metadata, p_hashes, p_chunk_counts, p_contents, p_urls, p_folders)
              with ordinality as t(namespace, slug, title, metadata, hash, chunk_count, content, url, folder, ord)
            where not v_skipped[t.ord]
            on conflict (namespace, md5(slug)) do update set
              title = excluded.title, metadata = excluded.metadata, content_hash = excluded.content_hash,
              chunk_count = excluded.chunk_count, content = excluded.content, url = excluded.url,
              folder = coalesce(excluded.folder, documents.folder), updated_at = now()
            returning documents.id
          )
          select array_agg(w.id order by w.id) into v_written from written w;
          -- Every writer and deleter holds the documents' locks, so each row is the one read above.
          select array_agg(x.id order by x.id) into v_expected
            from unnest(v_ids, v_skipped) as x(id, skipped) where not x.skipped;
          if v_written is distinct from v_expected then
            raise exception 'a document was written under another id than the one read under its lock';
          end if;
          insert into parent_chunks (id, document_id, ordinal, heading_path, content)
            select p.id, v_ids[p.doc], p.ordinal, p.heading_path, p.content
            from unnest(p_parent_ids, p_parent_docs, p_parent_ordinals, p_parent_heading_paths, p_parent_contents)
              as p(id, doc, ordinal, heading_path, content)
            where not v_skipped[p.doc];
          insert into chunks (id, document_id, parent_id, namespace, ordinal, heading_path, content, token_count, page, embedding, lexical_terms,
                                fragment)
            select c.id, v_ids[c.doc], c.parent_id, p_namespaces[c.doc], c.ordinal, c.heading_path, c.content, c.token_count, c.page, c.embedding,
                   c.lexical_terms::jsonb, c.fragment
            from unnest(p_child_ids, p_child_docs, p_child_parent_ids, p_child_ordinals, p_child_heading_paths,
                        p_child_contents, p_child_token_counts, p_child_pages, p_child_embeddings, p_child_lexical_terms,
                        p_child_fragments)
              as c(id, doc, parent_id, ordinal, heading_path, content, token_count, page, embedding, lexical_terms, fragment)
            where not v_skipped[c.doc];
        end if;
        return query select x.ord::int, x.id, x.skipped from unnest(v_ids, v_skipped) with ordinality as x(id, skipped, ord);
      end $$`.execute(db);
  },
};
