import { randomUUID } from 'node:crypto';
import type { Database, DB } from '@kb/db';
import { sql, type Kysely, type Transaction } from 'kysely';
import { afterPosition, cursorPage, cursorTime, type KeysetPosition } from '../lists/keyset.ts';
import { chunkSearchText, storedLexicalTerms } from '../search/hybrid.ts';
import { documentLockKey } from './content-hash.ts';

export interface StoredChild {
  parentOrdinal: number;
  ordinal: number;
  headingPath: string;
  content: string;
  tokenCount: number;
  /** The page of its source the chunk starts on (a PDF's). */
  page?: number;
  /** The included fragment its text comes from (a shared file copied into pages). */
  fragment?: string;
  embedding: ArrayLike<number>;
}

export interface StoredParent {
  ordinal: number;
  headingPath: string;
  content: string;
}

/** A row and the 1-based position of its document among the versions written. */
type Child = StoredChild & { id: string; doc: number; parentId: string | null; namespace: string; lexicalTerms: string };
type Parent = StoredParent & { id: string; doc: number };

export interface DocumentVersion {
  namespace: string;
  slug: string;
  title: string;
  metadata: Record<string, unknown>;
  contentHash: string;
  /** The Markdown as ingested (absent: not kept). */
  content?: string;
  /** The canonical http(s) link, if any. */
  url?: string | null;
  /** The folder of a `kb ingest-folder` run; undefined leaves the stored one as it is. */
  folder?: string;
  parents: StoredParent[];
  children: StoredChild[];
}

/** A stored document as the documents resource shows it. */
export interface DocumentRecord {
  id: string;
  namespace: string;
  slug: string;
  title: string;
  url: string | null;
  folder: string | null;
  /** The source that wrote it, if any. */
  sourceId: string | null;
  metadata: Record<string, unknown>;
  chunkCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface DocumentFilter {
  namespace?: string;
  /** Title or slug contains this, ignoring case. */
  q?: string;
  /** Documents a folder run over this folder recorded. */
  folder?: string;
  /** Documents this source (a synced website, ...) wrote. */
  sourceId?: string;
}

/** A child chunk as the documents resource shows it. */
export interface ChunkRecord {
  chunkId: string;
  headingPath: string;
  content: string;
  tokenCount: number;
}

const RECORD_COLUMNS = [
  'id',
  'namespace',
  'slug',
  'title',
  'url',
  'folder',
  'source_id',
  'metadata',
  'chunk_count',
  'created_at',
  'updated_at',
] as const;

function toRecord(row: {
  id: string;
  namespace: string;
  slug: string;
  title: string;
  url: string | null;
  folder: string | null;
  source_id: string | null;
  metadata: Record<string, unknown> | string;
  chunk_count: number;
  created_at: Date;
  updated_at: Date;
}): DocumentRecord {
  return {
    id: row.id,
    namespace: row.namespace,
    slug: row.slug,
    title: row.title,
    url: row.url,
    folder: row.folder,
    sourceId: row.source_id,
    metadata: typeof row.metadata === 'string' ? (JSON.parse(row.metadata) as Record<string, unknown>) : row.metadata,
    chunkCount: row.chunk_count,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** `text` as a LIKE pattern matching itself anywhere (its wildcards and escape taken literally). */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** What the hash check reads of a stored document. */
export interface StoredVersion {
  id: string;
  content_hash: string;
  folder: string | null;
}

export class DocumentsRepository {
  private readonly db: Kysely<DB>;

  constructor(private readonly database: Pick<Database, 'db' | 'reads' | 'vectorArrayParameter' | 'vectorRowsPerStatement'>) {
    this.db = database.db;
  }

  /** How many documents the store holds (kept by the store: the namespace_stats migration). */
  async count(): Promise<number> {
    return [...(await this.countByNamespace()).values()].reduce((sum, n) => sum + n, 0);
  }

  /** Documents per namespace (namespaces without any are absent), as the store keeps them. */
  async countByNamespace(): Promise<Map<string, number>> {
    const rows = await sql<{ namespace: string; documents: string }>`
      select namespace, documents from namespace_stats where documents > 0`.execute(this.db);
    return new Map(rows.rows.map((row) => [row.namespace, Number(row.documents)]));
  }

  /** The id of a document with this canonical URL, in one of `namespaces` (any, when null). */
  async idByUrl(url: string, namespaces: readonly string[] | null): Promise<string | undefined> {
    if (namespaces?.length === 0) return undefined;
    let query = this.db.selectFrom('documents').select('id').where('url', '=', url);
    if (namespaces !== null) query = query.where('namespace', 'in', [...namespaces]);
    return (await query.orderBy('updated_at', 'desc').limit(1).executeTakeFirst())?.id;
  }

  /** Every document's slug by its id. */
  async slugsById(): Promise<Map<string, string>> {
    const rows = await this.db.selectFrom('documents').select(['id', 'slug']).execute();
    return new Map(rows.map((r) => [r.id, r.slug]));
  }

  findVersion(namespace: string, slug: string): Promise<StoredVersion | undefined> {
    return this.db
      .selectFrom('documents')
      .select(['id', 'content_hash', 'folder'])
      .where('namespace', '=', namespace)
      // The unique index is on the slug's MD5 (a slug may be longer than a B-tree entry).
      .where(sql`md5(slug)`, '=', sql`md5(${slug})`)
      .where('slug', '=', slug)
      .executeTakeFirst();
  }

  /** Hashes of many documents of one namespace at once (bulk ingestion's skip check). */
  async findVersions(namespace: string, slugs: readonly string[]): Promise<Map<string, StoredVersion>> {
    const found = new Map<string, StoredVersion>();
    if (slugs.length === 0) return found;
    const rows = await this.db
      .selectFrom('documents')
      .select(['id', 'slug', 'content_hash', 'folder'])
      .where('namespace', '=', namespace)
      .where(sql<boolean>`md5(slug) = any(array(select md5(s) from unnest(${[...slugs]}::text[]) as s))`)
      .where('slug', 'in', [...slugs])
      .execute();
    for (const row of rows) found.set(row.slug, { id: row.id, content_hash: row.content_hash, folder: row.folder });
    return found;
  }

  /**
   * Records the folder of unchanged documents a folder run confirmed (a changed document gets
   * it with its new version).
   */
  async setFolder(ids: readonly string[], folder: string): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await this.db.updateTable('documents').set({ folder }).where('id', 'in', ids.slice(i, i + 500)).execute();
    }
  }

  /**
   * A page of documents, most recently updated first, and how many match the filter; after a
   * keyset position when given (see lists/keyset.ts), with the cursor after the page.
   */
  async list(
    filter: DocumentFilter,
    page: { limit: number; offset: number; after?: KeysetPosition },
  ): Promise<{ total: number; documents: DocumentRecord[]; nextCursor: string | null }> {
    // A list tolerates a replica's lag (docs/deployment.md).
    let query = this.database.reads.db.selectFrom('documents');
    if (filter.namespace !== undefined) query = query.where('namespace', '=', filter.namespace);
    if (filter.folder !== undefined) query = query.where('folder', '=', filter.folder);
    if (filter.sourceId !== undefined) query = query.where('source_id', '=', filter.sourceId);
    if (filter.q !== undefined) {
      const pattern = containsPattern(filter.q);
      query = query.where((eb) => eb.or([eb('title', 'ilike', pattern), eb('slug', 'ilike', pattern)]));
    }
    let rowsQuery = query.select(RECORD_COLUMNS).select(cursorTime('updated_at').as('cursor_at'));
    if (page.after) rowsQuery = rowsQuery.where(afterPosition('updated_at', 'id', page.after, 'asc'));
    // A namespace's count (or all of them) is kept by the store (the namespace_stats migration)
    // and read by key, not counted on every page; a folder or text filter counts its matches.
    const counted =
      filter.folder === undefined && filter.q === undefined && filter.sourceId === undefined
        ? sql<{ n: string }>`
            select coalesce(sum(documents), 0) as n from namespace_stats
            ${filter.namespace === undefined ? sql`` : sql`where namespace = ${filter.namespace}`}`
            .execute(this.database.reads.db)
            .then((result) => result.rows[0]!)
        : query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const [count, rows] = await Promise.all([
      counted,
      rowsQuery.orderBy('updated_at', 'desc').orderBy('id').limit(page.limit + 1).offset(page.offset).execute(),
    ]);
    const { rows: listed, nextCursor } = cursorPage(rows, page.limit, (row) => row.id);
    return { total: Number(count.n), documents: listed.map(toRecord), nextCursor };
  }

  /**
   * One document with its Markdown and its child chunks in order. A document stored before its
   * Markdown was kept gets its sections' Markdown, joined in order.
   */
  async get(id: string): Promise<(DocumentRecord & { content: string; chunks: ChunkRecord[] }) | undefined> {
    const row = await this.db.selectFrom('documents').select([...RECORD_COLUMNS, 'content']).where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const chunks = await this.db
      .selectFrom('chunks')
      .select(['id as chunkId', 'heading_path as headingPath', 'content', 'token_count as tokenCount'])
      .where('document_id', '=', id)
      .orderBy('ordinal')
      .execute();
    let content = row.content;
    if (content === null) {
      const sections = await this.db.selectFrom('parent_chunks').select('content').where('document_id', '=', id).orderBy('ordinal').execute();
      content = sections.map((s) => s.content).join('\n\n');
    }
    return { ...toRecord(row), content, chunks };
  }

  /**
   * Deletes a document and its chunks in one transaction, under the same per-(namespace, slug)
   * lock as ingestion: an ingest of that slug running at the same time either ends before (and its
   * version is deleted) or starts after (and writes a new document). False when there is no such
   * document (any more).
   */
  delete(id: string, options: { folder?: string } = {}): Promise<DocumentRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const found = await trx.selectFrom('documents').select(['namespace', 'slug']).where('id', '=', id).executeTakeFirst();
      if (!found) return undefined;
      await sql`select pg_advisory_xact_lock(${documentLockKey(found.namespace, found.slug)}::bigint)`.execute(trx);
      // Under the lock: an ingest that took the document over for another folder has committed.
      // Its chunks and sections go with it (the schema cascades).
      let query = trx.deleteFrom('documents').where('id', '=', id);
      if (options.folder !== undefined) query = query.where('folder', '=', options.folder);
      const deleted = await query.returning(RECORD_COLUMNS).executeTakeFirst();
      return deleted ? toRecord(deleted) : undefined;
    });
  }

  /** Id, namespace and slug of every document a folder run over `folder` recorded. */
  inFolder(folder: string): Promise<Array<{ id: string; namespace: string; slug: string }>> {
    return this.db.selectFrom('documents').select(['id', 'namespace', 'slug']).where('folder', '=', folder).orderBy('slug').execute();
  }

  /**
   * Removes the documents of a namespace whose slug starts with `prefix` but is not in `keep`
   * (their chunks go with them). Used by imports once a complete listing of the source is known.
   * Each group of 500 is deleted under the documents' locks, as {@link delete} does: a write of one
   * of them running at the same time ends before (and its version is deleted) or starts after
   * (and writes a new document under a new id). Returns how many were removed.
   */
  async deleteMissing(namespace: string, prefix: string, keep: ReadonlySet<string>): Promise<number> {
    const rows = await this.db
      .selectFrom('documents')
      .select(['id', 'slug'])
      .where('namespace', '=', namespace)
      .where(sql<boolean>`starts_with(slug, ${prefix})`)
      .execute();
    return this.deleteRows(namespace, rows.filter((row) => !keep.has(row.slug)));
  }

  /** Records the source that wrote or confirmed these documents. */
  async setSource(ids: readonly string[], sourceId: string): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await this.db
        .updateTable('documents')
        .set({ source_id: sourceId })
        .where('id', 'in', ids.slice(i, i + 500))
        .where((eb) => eb.or([eb('source_id', 'is', null), eb('source_id', '!=', sourceId)]))
        .execute();
    }
  }

  /** Deletes these documents of a source (those another source has taken over stay), under their locks. */
  async deleteOfSource(sourceId: string, ids?: readonly string[]): Promise<number> {
    let query = this.db.selectFrom('documents').select(['id', 'slug', 'namespace']).where('source_id', '=', sourceId);
    if (ids !== undefined) {
      if (ids.length === 0) return 0;
      query = query.where('id', 'in', [...ids]);
    }
    const rows = await query.execute();
    let removed = 0;
    for (const namespace of new Set(rows.map((r) => r.namespace))) removed += await this.deleteRows(namespace, rows.filter((r) => r.namespace === namespace));
    return removed;
  }

  private async deleteRows(namespace: string, gone: ReadonlyArray<{ id: string; slug: string }>): Promise<number> {
    let removed = 0;
    for (let i = 0; i < gone.length; i += 500) {
      const group = gone.slice(i, i + 500);
      removed += await this.db.transaction().execute(async (trx) => {
        // Sorted, as writers take them, so that the two never wait for each other in a cycle.
        const keys = [...new Set(group.map((row) => documentLockKey(namespace, row.slug)))].sort();
        await sql`select pg_advisory_xact_lock(k) from unnest(${keys}::bigint[]) as k order by k`.execute(trx);
        const deleted = await trx.deleteFrom('documents').where('id', 'in', group.map((row) => row.id)).executeTakeFirst();
        return Number(deleted.numDeletedRows);
      });
    }
    return removed;
  }

  /**
   * Pipeline steps 2-4 and 7 in one short transaction, serialised per (namespace, slug) by an
   * advisory lock: a concurrent ingest of the same document waits, then sees this version.
   * Returns skipped when the stored version already has this content hash.
   */
  async writeVersion(version: DocumentVersion): Promise<{ documentId: string; skipped: boolean }> {
    const [result] = await this.writeVersions([version]);
    return result!;
  }

  /**
   * Any number of document versions in one transaction (bulk ingestion batches them) and, unless
   * the store wants a large write's vectors in several statements, in one statement: the store's
   * write_documents function (its migration says how it locks, skips and replaces). Versions must
   * have distinct (namespace, slug) pairs.
   */
  async writeVersions(versions: readonly DocumentVersion[]): Promise<Array<{ documentId: string; skipped: boolean }>> {
    if (versions.length === 0) return [];
    const parents: Parent[] = [];
    const children: Child[] = [];
    for (const [i, version] of versions.entries()) {
      const doc = i + 1;
      const parentIds = new Map<number, string>();
      for (const p of version.parents) {
        const id = randomUUID();
        parentIds.set(p.ordinal, id);
        parents.push({ id, doc, ordinal: p.ordinal, headingPath: p.headingPath, content: p.content });
      }
      for (const c of version.children) {
        children.push({
          ...c,
          id: randomUUID(),
          doc,
          parentId: parentIds.get(c.parentOrdinal) ?? null,
          namespace: version.namespace,
          // What hybrid searches rescore the chunk from (see storedLexicalTerms).
          lexicalTerms: storedLexicalTerms(chunkSearchText(c.headingPath, c.content)),
        });
      }
    }
    const slice = this.database.vectorRowsPerStatement;
    if (children.length <= slice) return this.callWrite(this.db, versions, parents, children);
    // The rest of the children, of the documents written, in statements of their own.
    return this.db.transaction().execute(async (trx) => {
      const results = await this.callWrite(trx, versions, parents, children.slice(0, slice));
      const rest = children.slice(slice).filter((c) => !results[c.doc - 1]!.skipped);
      for (let start = 0; start < rest.length; start += slice) {
        await (await this.childrenInsert(trx, rest.slice(start, start + slice), (c) => results[c.doc - 1]!.documentId)).execute(trx);
      }
      return results;
    });
  }

  /** One call of write_documents: the versions with these of their rows. */
  private async callWrite(
    executor: Kysely<DB>,
    versions: readonly DocumentVersion[],
    parents: readonly Parent[],
    children: readonly Child[],
  ): Promise<Array<{ documentId: string; skipped: boolean }>> {
    const keys = [...new Set(versions.map((v) => documentLockKey(v.namespace, v.slug)))].sort();
    const embeddings = await this.database.vectorArrayParameter(executor, children.map((c) => c.embedding));
    const { rows } = await sql<{ out_ord: number; out_id: string; out_skipped: boolean }>`
      select out_ord, out_id, out_skipped from write_documents(
        ${keys}::bigint[],
        ${versions.map(() => randomUUID())}::uuid[], ${versions.map((v) => v.namespace)}::text[], ${versions.map((v) => v.slug)}::text[],
        ${versions.map((v) => v.title)}::text[], ${versions.map((v) => JSON.stringify(v.metadata))}::text[],
        ${versions.map((v) => v.contentHash)}::text[], ${versions.map((v) => v.children.length)}::int[],
        ${versions.map((v) => v.content ?? null)}::text[], ${versions.map((v) => v.url ?? null)}::text[],
        ${versions.map((v) => v.folder ?? null)}::text[],
        ${parents.map((p) => p.id)}::uuid[], ${parents.map((p) => p.doc)}::int[], ${parents.map((p) => p.ordinal)}::int[],
        ${parents.map((p) => p.headingPath)}::text[], ${parents.map((p) => p.content)}::text[],
        ${children.map((c) => c.id)}::uuid[], ${children.map((c) => c.doc)}::int[], ${children.map((c) => c.parentId)}::uuid[],
        ${children.map((c) => c.ordinal)}::int[], ${children.map((c) => c.headingPath)}::text[], ${children.map((c) => c.content)}::text[],
        ${children.map((c) => c.tokenCount)}::int[], ${children.map((c) => c.page ?? null)}::int[], ${embeddings},
        ${children.map((c) => c.lexicalTerms)}::text[],
        ${children.map((c) => c.fragment ?? null)}::text[])`.execute(executor);
    const results = new Array<{ documentId: string; skipped: boolean }>(versions.length);
    for (const row of rows) results[Number(row.out_ord) - 1] = { documentId: row.out_id, skipped: row.out_skipped };
    return results;
  }

  /** An insert statement of children of written documents (without executing it). */
  private async childrenInsert(trx: Transaction<DB>, children: readonly Child[], documentId: (child: Child) => string) {
    const embeddings = await this.database.vectorArrayParameter(trx, children.map((c) => c.embedding));
    return sql`
      insert into chunks (id, document_id, parent_id, namespace, ordinal, heading_path, content, token_count, page, embedding, lexical_terms, fragment)
      select id, document_id, parent_id, namespace, ordinal, heading_path, content, token_count, page, embedding, lexical_terms::jsonb, fragment
      from unnest(${children.map((c) => c.id)}::uuid[], ${children.map(documentId)}::uuid[],
                  ${children.map((c) => c.parentId)}::uuid[], ${children.map((c) => c.namespace)}::text[],
                  ${children.map((c) => c.ordinal)}::int[], ${children.map((c) => c.headingPath)}::text[],
                  ${children.map((c) => c.content)}::text[], ${children.map((c) => c.tokenCount)}::int[],
                  ${children.map((c) => c.page ?? null)}::int[], ${embeddings}, ${children.map((c) => c.lexicalTerms)}::text[],
                  ${children.map((c) => c.fragment ?? null)}::text[])
        as t(id, document_id, parent_id, namespace, ordinal, heading_path, content, token_count, page, embedding, lexical_terms, fragment)`;
  }
}
