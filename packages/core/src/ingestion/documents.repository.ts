import { randomUUID } from 'node:crypto';
import type { DB } from '@kb/db';
import { sql, type Kysely, type Transaction } from 'kysely';
import { documentLockKey } from './content-hash.ts';

export interface StoredChild {
  parentOrdinal: number;
  ordinal: number;
  headingPath: string;
  content: string;
  tokenCount: number;
  embedding: readonly number[];
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

export function toVectorLiteral(vector: readonly number[]): string {
  let out = '[';
  for (let i = 0; i < vector.length; i++) {
    if (i > 0) out += ',';
    // Seven significant digits are all a 4-byte float keeps.
    out += Number.isInteger(vector[i]!) ? String(vector[i]) : vector[i]!.toPrecision(7);
  }
  return `${out}]`;
}

export class DocumentsRepository {
  constructor(private readonly db: Kysely<DB>) {}

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
   * Pipeline steps 2-4 and 7 in one short transaction, serialised per (namespace, slug) by an
   * advisory lock: a concurrent ingest of the same document waits, then sees this version.
   * Returns skipped when the stored version already has this content hash.
   */
  writeVersion(version: DocumentVersion): Promise<{ documentId: string; skipped: boolean }> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${documentLockKey(version.namespace, version.slug)}::bigint)`.execute(trx);
      const existing = await trx
        .selectFrom('documents')
        .select(['id', 'content_hash'])
        .where('namespace', '=', version.namespace)
        .where('slug', '=', version.slug)
        .executeTakeFirst();
      if (existing?.content_hash === version.contentHash) return { documentId: existing.id, skipped: true };

      await trx.insertInto('namespaces').values({ id: version.namespace }).onConflict((oc) => oc.column('id').doNothing()).execute();
      const document = await trx
        .insertInto('documents')
        .values({
          namespace: version.namespace,
          slug: version.slug,
          title: version.title,
          metadata: JSON.stringify(version.metadata),
          content_hash: version.contentHash,
          chunk_count: version.children.length,
        })
        .onConflict((oc) =>
          oc.columns(['namespace', 'slug']).doUpdateSet({
            title: version.title,
            metadata: JSON.stringify(version.metadata),
            content_hash: version.contentHash,
            chunk_count: version.children.length,
            updated_at: new Date(),
          }),
        )
        .returning('id')
        .executeTakeFirstOrThrow();
      if (existing) await this.deleteChunks(trx, document.id);
      await this.insertChunks(trx, document.id, version);
      return { documentId: document.id, skipped: false };
    });
  }

  private async deleteChunks(trx: Transaction<DB>, documentId: string): Promise<void> {
    await trx.deleteFrom('chunks').where('document_id', '=', documentId).execute();
    await trx.deleteFrom('parent_chunks').where('document_id', '=', documentId).execute();
  }

  private async insertChunks(trx: Transaction<DB>, documentId: string, version: DocumentVersion): Promise<void> {
    if (version.parents.length === 0) return;
    const parentIds = version.parents.map(() => randomUUID());
    const parentIdByOrdinal = new Map(version.parents.map((p, i) => [p.ordinal, parentIds[i]!]));
    // One statement per table with array parameters: a handful of parameters whatever the
    // number of rows, so the statement stays cheap to parse and plan.
    await sql`
      insert into parent_chunks (id, document_id, ordinal, heading_path, content)
      select id, ${documentId}::uuid, ordinal, heading_path, content
      from unnest(${parentIds}::uuid[], ${version.parents.map((p) => p.ordinal)}::int[],
                  ${version.parents.map((p) => p.headingPath)}::text[], ${version.parents.map((p) => p.content)}::text[])
        as t(id, ordinal, heading_path, content)`.execute(trx);
    if (version.children.length === 0) return;
    const children = version.children;
    await sql`
      insert into chunks (id, document_id, parent_id, namespace, ordinal, heading_path, content, token_count, embedding)
      select id, ${documentId}::uuid, parent_id, ${version.namespace}, ordinal, heading_path, content, token_count, embedding::vector
      from unnest(${children.map(() => randomUUID())}::uuid[],
                  ${children.map((c) => parentIdByOrdinal.get(c.parentOrdinal) ?? null)}::uuid[],
                  ${children.map((c) => c.ordinal)}::int[],
                  ${children.map((c) => c.headingPath)}::text[],
                  ${children.map((c) => c.content)}::text[],
                  ${children.map((c) => c.tokenCount)}::int[],
                  ${children.map((c) => toVectorLiteral(c.embedding))}::text[])
        as t(id, parent_id, ordinal, heading_path, content, token_count, embedding)`.execute(trx);
  }
}
