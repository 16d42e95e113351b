import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/**
 * The HNSW index on chunk embeddings. Bulk loads into a store nobody else is using may drop it
 * and build it once at the end (several times faster than growing it row by row); a load that
 * dies midway leaves it missing, so every start ensures it exists.
 */
export const VECTOR_INDEX = 'chunks_embedding_idx';

export async function vectorIndexExists(db: Kysely<DB>): Promise<boolean> {
  const result = await sql<{ n: number }>`select count(*)::int as n from pg_indexes where indexname = ${VECTOR_INDEX}`.execute(db);
  return result.rows[0]!.n > 0;
}

export async function dropVectorIndex(db: Kysely<DB>): Promise<void> {
  await sql`drop index if exists ${sql.ref(VECTOR_INDEX)}`.execute(db);
}

/** Creates the index if it is missing; returns whether it had to. */
export async function ensureVectorIndex(db: Kysely<DB>): Promise<boolean> {
  if (await vectorIndexExists(db)) return false;
  await sql`create index if not exists ${sql.ref(VECTOR_INDEX)} on chunks using hnsw (embedding vector_cosine_ops)`.execute(db);
  return true;
}
