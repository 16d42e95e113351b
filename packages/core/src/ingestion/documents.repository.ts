import { randomUUID } from 'node:crypto';
import type { Database, DB } from '@kb/db';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { documentLockKey } from './content-hash.ts';

export interface StoredChild {
  parentOrdinal: number;
  ordinal: number;
  headingPath: string;
  content: string;
  tokenCount: number;
  embedding: ArrayLike<number>;
}

export interface StoredParent {
  ordinal: number;
  headingPath: string;
  content: string;
}

export interface DocumentVersion {
  namespace: string;
  slug: string;
  title: string;
  metadata: Record<string, unknown>;
  contentHash: string;
  parents: StoredParent[];
  children: StoredChild[];
}

/** Chunks per insert statement on PGlite (see insertChunks). */
const EMBEDDED_INSERT_ROWS = 128;

export function toVectorLiteral(vector: ArrayLike<number>): string {
  let out = '[';
  for (let i = 0; i < vector.length; i++) {
    if (i > 0) out += ',';
    // Seven significant digits are all a 4-byte float keeps.
    out += Number.isInteger(vector[i]!) ? String(vector[i]) : vector[i]!.toPrecision(7);
  }
  return `${out}]`;
}

/**
 * pgvector's binary form of a vector (int16 dimension, int16 unused, big-endian float4s): sent
 * as a binary parameter, the server copies it instead of parsing a thousand decimal numbers.
 * node-postgres sends a Buffer parameter in binary; PGlite does not, so it gets the literal.
 */
export function toVectorBinary(vector: ArrayLike<number>): Buffer {
  const buffer = Buffer.allocUnsafe(4 + 4 * vector.length);
  writeVectorBinary(buffer, 0, vector);
  return buffer;
}

/** Writes pgvector's binary form of `vector` at `offset`; returns the offset after it. */
function writeVectorBinary(buffer: Buffer, offset: number, vector: ArrayLike<number>): number {
  let at = buffer.writeInt16BE(vector.length, offset);
  at = buffer.writeInt16BE(0, at);
  for (let i = 0; i < vector.length; i++) at = buffer.writeFloatBE(vector[i]!, at);
  return at;
}

/**
 * Many vectors as one binary PostgreSQL array of pgvector's `vector` (`elementType` is the type's
 * oid, which the extension assigns at install): one parameter that the server copies element by
 * element, where an array of vector literals costs the client escaping every string and the
 * server parsing every number (1,024 of them a vector).
 */
export function toVectorArrayBinary(vectors: ReadonlyArray<ArrayLike<number>>, elementType: number): Buffer {
  let size = 20;
  for (const v of vectors) size += 8 + 4 * v.length;
  const buffer = Buffer.allocUnsafe(size);
  let at = buffer.writeInt32BE(1, 0); // dimensions
  at = buffer.writeInt32BE(0, at); // no nulls
  at = buffer.writeInt32BE(elementType, at);
  at = buffer.writeInt32BE(vectors.length, at);
  at = buffer.writeInt32BE(1, at); // lower bound
  for (const v of vectors) at = writeVectorBinary(buffer, buffer.writeInt32BE(4 + 4 * v.length, at), v);
  return buffer;
}

export class DocumentsRepository {
  /** The `vector` type's oid, looked up once (PostgreSQL). */
  private vectorType: Promise<number> | undefined;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly kind: Database['kind'],
  ) {}

  /**
   * An array parameter of vectors, typed vector[]: binary on PostgreSQL; vector literals on
   * PGlite, which takes parameters as text.
   */
  private async vectorsParameter(trx: Transaction<DB>, vectors: ReadonlyArray<ArrayLike<number>>): Promise<RawBuilder<unknown>> {
    if (this.kind === 'pglite') return sql`${vectors.map((v) => toVectorLiteral(v))}::text[]::vector[]`;
    this.vectorType ??= sql<{ oid: number }>`select 'vector'::regtype::oid as oid`.execute(trx).then((r) => Number(r.rows[0]!.oid));
    let oid: number;
    try {
      oid = await this.vectorType;
    } catch (error) {
      this.vectorType = undefined;
      throw error;
    }
    return sql`${toVectorArrayBinary(vectors, oid)}::vector[]`;
  }

  findVersion(namespace: string, slug: string): Promise<{ id: string; content_hash: string } | undefined> {
    return this.db
      .selectFrom('documents')
      .select(['id', 'content_hash'])
      .where('namespace', '=', namespace)
      .where('slug', '=', slug)
      .executeTakeFirst();
  }

  /** Hashes of many documents of one namespace at once (bulk ingestion's skip check). */
  async findVersions(namespace: string, slugs: readonly string[]): Promise<Map<string, { id: string; content_hash: string }>> {
    const found = new Map<string, { id: string; content_hash: string }>();
    if (slugs.length === 0) return found;
    const rows = await this.db
      .selectFrom('documents')
      .select(['id', 'slug', 'content_hash'])
      .where('namespace', '=', namespace)
      .where('slug', 'in', [...slugs])
      .execute();
    for (const row of rows) found.set(row.slug, { id: row.id, content_hash: row.content_hash });
    return found;
  }

  /**
   * Removes the documents of a namespace whose slug starts with `prefix` but is not in `keep`
   * (their chunks go with them). Used by imports once a complete listing of the source is known.
   * Returns how many were removed.
   */
  async deleteMissing(namespace: string, prefix: string, keep: ReadonlySet<string>): Promise<number> {
    const rows = await this.db
      .selectFrom('documents')
      .select(['id', 'slug'])
      .where('namespace', '=', namespace)
      .where(sql<boolean>`starts_with(slug, ${prefix})`)
      .execute();
    const gone = rows.filter((row) => !keep.has(row.slug)).map((row) => row.id);
    for (let i = 0; i < gone.length; i += 500) {
      await this.db.deleteFrom('documents').where('id', 'in', gone.slice(i, i + 500)).execute();
    }
    return gone.length;
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
   * Any number of document versions in one transaction (bulk ingestion batches them): a
   * handful of statements for the whole batch, whatever its size. Versions must have distinct
   * (namespace, slug) pairs.
   */
  writeVersions(versions: readonly DocumentVersion[]): Promise<Array<{ documentId: string; skipped: boolean }>> {
    if (versions.length === 0) return Promise.resolve([]);
    return this.db.transaction().execute(async (trx) => {
      const keys = [...new Set(versions.map((v) => documentLockKey(v.namespace, v.slug)))].sort();
      // Sorted, so two batches that share documents take their locks in the same order.
      await sql`select pg_advisory_xact_lock(k) from unnest(${keys}::bigint[]) as k order by k`.execute(trx);
      const existing = await sql<{ id: string; namespace: string; slug: string; content_hash: string }>`
        select d.id, d.namespace, d.slug, d.content_hash
        from documents d
        join unnest(${versions.map((v) => v.namespace)}::text[], ${versions.map((v) => v.slug)}::text[]) as k(namespace, slug)
          on d.namespace = k.namespace and d.slug = k.slug`.execute(trx);
      const byKey = new Map(existing.rows.map((r) => [`${r.namespace}\u0000${r.slug}`, r]));
      const changed = versions.filter((v) => byKey.get(`${v.namespace}\u0000${v.slug}`)?.content_hash !== v.contentHash);
      if (changed.length > 0) {
        // Only namespaces not there yet: ON CONFLICT on a row another open transaction inserted
        // would wait for that transaction, serialising concurrent batches.
        await sql`
          insert into namespaces (id)
          select id from unnest(${[...new Set(changed.map((v) => v.namespace))]}::text[]) as t(id)
          where not exists (select 1 from namespaces n where n.id = t.id)
          on conflict (id) do nothing`.execute(trx);
        const written = await sql<{ id: string; namespace: string; slug: string }>`
          insert into documents (namespace, slug, title, metadata, content_hash, chunk_count)
          select namespace, slug, title, metadata::jsonb, content_hash, chunk_count
          from unnest(${changed.map((v) => v.namespace)}::text[], ${changed.map((v) => v.slug)}::text[],
                      ${changed.map((v) => v.title)}::text[], ${changed.map((v) => JSON.stringify(v.metadata))}::text[],
                      ${changed.map((v) => v.contentHash)}::text[], ${changed.map((v) => v.children.length)}::int[])
            as t(namespace, slug, title, metadata, content_hash, chunk_count)
          on conflict (namespace, slug) do update set
            title = excluded.title, metadata = excluded.metadata, content_hash = excluded.content_hash,
            chunk_count = excluded.chunk_count, updated_at = now()
          returning id, namespace, slug`.execute(trx);
        const ids = new Map(written.rows.map((r) => [`${r.namespace}\u0000${r.slug}`, r.id]));
        const replaced = changed.map((v) => byKey.get(`${v.namespace}\u0000${v.slug}`)?.id).filter((id): id is string => id !== undefined);
        if (replaced.length > 0) {
          await trx.deleteFrom('chunks').where('document_id', 'in', replaced).execute();
          await trx.deleteFrom('parent_chunks').where('document_id', 'in', replaced).execute();
        }
        await this.insertChunks(trx, changed.map((v) => ({ documentId: ids.get(`${v.namespace}\u0000${v.slug}`)!, version: v })));
        for (const v of changed) byKey.set(`${v.namespace}\u0000${v.slug}`, { id: ids.get(`${v.namespace}\u0000${v.slug}`)!, namespace: v.namespace, slug: v.slug, content_hash: '' });
      }
      const changedSet = new Set(changed);
      return versions.map((v) => ({ documentId: byKey.get(`${v.namespace}\u0000${v.slug}`)!.id, skipped: !changedSet.has(v) }));
    });
  }

  /**
   * Parents and children of any number of documents: one statement per table with array
   * parameters, a handful of parameters whatever the number of rows, so the statements stay
   * cheap to parse and plan.
   */
  private async insertChunks(trx: Transaction<DB>, items: Array<{ documentId: string; version: DocumentVersion }>): Promise<void> {
    const parents: Array<{ id: string; documentId: string; ordinal: number; headingPath: string; content: string }> = [];
    const children: Array<StoredChild & { id: string; documentId: string; parentId: string | null; namespace: string }> = [];
    for (const { documentId, version } of items) {
      const parentIds = new Map<number, string>();
      for (const p of version.parents) {
        const id = randomUUID();
        parentIds.set(p.ordinal, id);
        parents.push({ id, documentId, ordinal: p.ordinal, headingPath: p.headingPath, content: p.content });
      }
      for (const c of version.children) {
        children.push({ ...c, id: randomUUID(), documentId, parentId: parentIds.get(c.parentOrdinal) ?? null, namespace: version.namespace });
      }
    }
    if (parents.length > 0) {
      await sql`
        insert into parent_chunks (id, document_id, ordinal, heading_path, content)
        select * from unnest(${parents.map((p) => p.id)}::uuid[], ${parents.map((p) => p.documentId)}::uuid[],
                             ${parents.map((p) => p.ordinal)}::int[], ${parents.map((p) => p.headingPath)}::text[],
                             ${parents.map((p) => p.content)}::text[])`.execute(trx);
    }
    // PGlite takes vectors as text: a statement's literals are built, and its parameters copied to
    // the database's thread, on this thread in one piece (about 0.5 ms a vector), so a large
    // document goes in statements of EMBEDDED_INSERT_ROWS, and requests get their turn between.
    const slice = this.kind === 'pglite' ? EMBEDDED_INSERT_ROWS : children.length;
    for (let start = 0; start < children.length; start += slice) {
      await this.insertChildren(trx, children.slice(start, start + slice));
    }
  }

  private async insertChildren(
    trx: Transaction<DB>,
    children: ReadonlyArray<StoredChild & { id: string; documentId: string; parentId: string | null; namespace: string }>,
  ): Promise<void> {
    const embeddings = await this.vectorsParameter(trx, children.map((c) => c.embedding));
    await sql`
      insert into chunks (id, document_id, parent_id, namespace, ordinal, heading_path, content, token_count, embedding)
      select id, document_id, parent_id, namespace, ordinal, heading_path, content, token_count, embedding
      from unnest(${children.map((c) => c.id)}::uuid[], ${children.map((c) => c.documentId)}::uuid[],
                  ${children.map((c) => c.parentId)}::uuid[], ${children.map((c) => c.namespace)}::text[],
                  ${children.map((c) => c.ordinal)}::int[], ${children.map((c) => c.headingPath)}::text[],
                  ${children.map((c) => c.content)}::text[], ${children.map((c) => c.tokenCount)}::int[],
                  ${embeddings})
        as t(id, document_id, parent_id, namespace, ordinal, heading_path, content, token_count, embedding)`.execute(trx);
  }
}
