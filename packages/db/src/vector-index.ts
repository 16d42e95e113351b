import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from './schema.ts';

/**
 * The HNSW index on chunk embeddings. Bulk loads into a store nobody else is using may drop it
 * and build it once at the end (several times faster than growing it row by row); a load that
 * dies midway leaves it missing, so every start ensures it exists.
 */
export const VECTOR_INDEX = 'chunks_embedding_idx';

/** pgvector's HNSW limits: dimensions a `vector` and a `halfvec` index can hold. */
const MAX_VECTOR_INDEX_DIMENSION = 2000;
export const MAX_INDEXED_DIMENSION = 4000;

/**
 * How the index holds vectors. The column always keeps full precision; the index may hold a
 * half-precision copy:
 * - PostgreSQL: halfvec. A third of the index's size (2 KB a 1,024-dimension vector, several a
 *   page, instead of one 4 KB vector a page), inserts about 25% cheaper and searches cheaper,
 *   for a recall within a point of the full-precision graph's.
 * - PGlite: vector, because its WebAssembly build converts half floats in software (inserts 6x
 *   slower than with full precision), unless the dimension is above what a vector index holds.
 */
export type VectorIndexPrecision = 'half' | 'full';

export function vectorIndexPrecision(kind: 'postgres' | 'pglite', dimension: number): VectorIndexPrecision {
  return kind === 'postgres' || dimension > MAX_VECTOR_INDEX_DIMENSION ? 'half' : 'full';
}

/** The expression the index is built on, for a column reference. */
function indexedEmbedding(precision: VectorIndexPrecision, dimension: number, column: RawBuilder<unknown>): RawBuilder<unknown> {
  return precision === 'half' ? sql`(${column})::${sql.raw(`halfvec(${checkedDimension(dimension)})`)}` : column;
}

/**
 * The cosine distance between an embedding column and a query vector parameter (vector text or
 * pgvector's binary form), written as the store's index compares them: a nearest-neighbour
 * query that orders by this expression uses the index.
 */
export function vectorDistance(
  kind: 'postgres' | 'pglite',
  dimension: number,
  column: RawBuilder<unknown>,
  queryVector: unknown,
): RawBuilder<number> {
  const precision = vectorIndexPrecision(kind, dimension);
  const query = precision === 'half' ? sql`${queryVector}::vector::${sql.raw(`halfvec(${checkedDimension(dimension)})`)}` : sql`${queryVector}::vector`;
  return sql<number>`${indexedEmbedding(precision, dimension, column)} <=> ${query}`;
}

function checkedDimension(dimension: number): number {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > MAX_INDEXED_DIMENSION) {
    throw new RangeError(`an indexed embedding has 1 to ${MAX_INDEXED_DIMENSION} dimensions, not ${dimension}`);
  }
  return dimension;
}

/** The dimension of the store's embedding column (its type modifier). */
export async function embeddingColumnDimension(db: Kysely<DB>): Promise<number> {
  const result = await sql<{ dimension: number }>`
    select atttypmod as dimension from pg_attribute
    where attrelid = 'chunks'::regclass and attname = 'embedding'`.execute(db);
  return result.rows[0]!.dimension;
}

export async function vectorIndexExists(db: Kysely<DB>): Promise<boolean> {
  const result = await sql<{ n: number }>`select count(*)::int as n from pg_indexes where indexname = ${VECTOR_INDEX}`.execute(db);
  return result.rows[0]!.n > 0;
}

export async function dropVectorIndex(db: Kysely<DB>): Promise<void> {
  await sql`drop index if exists ${sql.ref(VECTOR_INDEX)}`.execute(db);
}

/** Builds the index for the column's current dimension (the caller has dropped any other). */
export async function createVectorIndex(db: Kysely<DB>, kind: 'postgres' | 'pglite'): Promise<void> {
  const dimension = await embeddingColumnDimension(db);
  const precision = vectorIndexPrecision(kind, dimension);
  const key = indexedEmbedding(precision, dimension, sql.ref('embedding'));
  const opclass = sql.raw(precision === 'half' ? 'halfvec_cosine_ops' : 'vector_cosine_ops');
  await sql`create index if not exists ${sql.ref(VECTOR_INDEX)} on chunks using hnsw ((${key}) ${opclass})`.execute(db);
}

/** Creates the index if it is missing; returns whether it had to. */
export async function ensureVectorIndex(db: Kysely<DB>, kind: 'postgres' | 'pglite'): Promise<boolean> {
  if (await vectorIndexExists(db)) return false;
  await createVectorIndex(db, kind);
  return true;
}
