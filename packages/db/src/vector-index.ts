import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from './schema.ts';

/**
 * The HNSW index on chunk embeddings. Bulk loads into a store nobody else is using may drop it
 * and build it once at the end (several times faster than growing it row by row); a load that
 * dies midway leaves it missing, so every start ensures it exists.
 */
export const VECTOR_INDEX = 'chunks_embedding_idx';

/**
 * Widest embedding column the store accepts (KB_EMBEDDING_DIM's bound): twice the widest output
 * of current embedding models, and what a half-precision index could hold whole.
 */
export const MAX_INDEXED_DIMENSION = 4000;

/** Widest vector the index holds whole (pgvector's limit for a full-precision HNSW index). */
const WHOLE_VECTOR_LIMIT = 2000;

/**
 * Components the index holds of wider vectors: their first 1,024, a shortlist that searches
 * rerank by the whole vectors (see {@link shortlistSize}). Voyage's current models
 * (voyage-3.5, voyage-3-large, voyage-code-3) are trained so that a prefix of their output is an
 * embedding of its own (1,024 is their default width). Against a half-precision index of whole
 * 2,048-component vectors this halves the index and the cost of inserting into it, and lets
 * PGlite keep full precision.
 *
 * Narrower vectors are indexed whole: for the built-in embedder a 512-component prefix made
 * inserts 25-35% cheaper, but the prefix graph needed ef_search 200 to approach the recall of
 * the whole-vector graph at 100 (SciFact semantic 0.80-0.815 x BM25 against 0.818 x), which made
 * searches slower (docs/benchmarks.md).
 */
const INDEXED_PREFIX = 1024;

/** Shortlist of a search: at least this many candidates ... */
const SHORTLIST_MIN = 40;
/** ... and this many per result asked for. */
const SHORTLIST_PER_RESULT = 2;

/**
 * How the index holds vectors. The column always keeps full precision; the index may hold a
 * half-precision copy:
 * - PostgreSQL: halfvec. Half the index's size, inserts about 25% cheaper and cheaper distance
 *   computations, for a recall within a point of the full-precision graph's.
 * - PGlite: vector, because its WebAssembly build converts half floats in software (inserts 6x
 *   slower than with full precision).
 */
export type VectorIndexPrecision = 'half' | 'full';

export function vectorIndexPrecision(kind: 'postgres' | 'pglite'): VectorIndexPrecision {
  return kind === 'postgres' ? 'half' : 'full';
}

/** Components the index holds of a vector of `dimension` components. */
export function indexedDimension(dimension: number): number {
  return checkedDimension(dimension) <= WHOLE_VECTOR_LIMIT ? dimension : INDEXED_PREFIX;
}

/**
 * Candidates a search for `limit` results takes from the index before reranking them by the
 * whole vector, or null when the index holds whole vectors (its order is the answer).
 */
export function shortlistSize(dimension: number, limit: number): number | null {
  return indexedDimension(dimension) < dimension ? Math.max(SHORTLIST_MIN, SHORTLIST_PER_RESULT * limit) : null;
}

/** The indexed form of a vector expression (a column, or a query vector cast to vector). */
function indexedForm(kind: 'postgres' | 'pglite', dimension: number, vector: RawBuilder<unknown>): RawBuilder<unknown> {
  const indexed = indexedDimension(dimension);
  const prefix = indexed < dimension ? sql`subvector(${vector}, 1, ${sql.lit(indexed)})` : vector;
  if (vectorIndexPrecision(kind) === 'half') return sql`(${prefix})::${sql.raw(`halfvec(${indexed})`)}`;
  return indexed < dimension ? sql`(${prefix})::${sql.raw(`vector(${indexed})`)}` : prefix;
}

/**
 * The cosine distance between an embedding column and a query vector parameter (vector text or
 * pgvector's binary form), written as the store's index compares them: a nearest-neighbour
 * query that orders by this expression uses the index. When the index holds a prefix, this is
 * the prefix's distance: rerank the shortlist with {@link exactVectorDistance}.
 */
export function vectorDistance(
  kind: 'postgres' | 'pglite',
  dimension: number,
  column: RawBuilder<unknown>,
  queryVector: unknown,
): RawBuilder<number> {
  return sql<number>`${indexedForm(kind, dimension, column)} <=> ${indexedForm(kind, dimension, sql`${queryVector}::vector`)}`;
}

/** The cosine distance between an embedding column and a query vector parameter, in full. */
export function exactVectorDistance(column: RawBuilder<unknown>, queryVector: unknown): RawBuilder<number> {
  return sql<number>`${column} <=> ${queryVector}::vector`;
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

/**
 * What the index is built on, recorded as the index's comment: an index that records another,
 * or records none and is built on another expression (by an earlier version), is rebuilt at the
 * next start.
 */
export function vectorIndexSignature(kind: 'postgres' | 'pglite', dimension: number): string {
  return `hnsw cosine ${vectorIndexPrecision(kind)} ${indexedDimension(dimension)}/${dimension}`;
}

/** How PostgreSQL prints the definition of the index as {@link createVectorIndex} builds it. */
function printedIndexKey(kind: 'postgres' | 'pglite', dimension: number): string {
  const indexed = indexedDimension(dimension);
  const column = indexed < dimension ? `(subvector(embedding, 1, ${indexed}))` : '(embedding)';
  if (vectorIndexPrecision(kind) === 'half') return `((${column}::halfvec(${indexed})) halfvec_cosine_ops)`;
  return indexed < dimension ? `((${column}::vector(${indexed})) vector_cosine_ops)` : '(embedding vector_cosine_ops)';
}

/**
 * The index's recorded signature: undefined when there is no index, null when it records none.
 * An index built before definitions were recorded gets its signature when it is what this
 * version builds (no rebuild for nothing).
 */
async function existingSignature(db: Kysely<DB>, kind: 'postgres' | 'pglite', dimension: number): Promise<string | null | undefined> {
  const result = await sql<{ signature: string | null; definition: string }>`
    select obj_description(c.oid, 'pg_class') as signature, pg_get_indexdef(c.oid) as definition
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relname = ${VECTOR_INDEX} and c.relkind = 'i' and n.nspname = current_schema()`.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  if (row.signature === null && row.definition.endsWith(`USING hnsw ${printedIndexKey(kind, dimension)}`)) {
    const signature = vectorIndexSignature(kind, dimension);
    await sql`comment on index ${sql.ref(VECTOR_INDEX)} is ${sql.lit(signature)}`.execute(db);
    return signature;
  }
  return row.signature;
}

export async function dropVectorIndex(db: Kysely<DB>): Promise<void> {
  await sql`drop index if exists ${sql.ref(VECTOR_INDEX)}`.execute(db);
}

/**
 * Memory an index build may use at most, set for the build when the store's own setting is
 * lower. pgvector builds the graph in memory while it fits (about 1 ms a vector in PGlite) and
 * inserts the rest one by one, several times slower (20,000 vectors in PGlite: 43 s with room
 * for all of them, 114 s with the default 64 MB, which holds 14,000). PGlite's share is smaller:
 * its WebAssembly memory is the whole database's.
 */
const MAX_BUILD_MEMORY_MB = { postgres: 1024, pglite: 768 } as const;

/** Bytes an element of the graph takes beyond its vector (neighbour lists, headers). */
const GRAPH_ELEMENT_OVERHEAD = 700;

/** maintenance_work_mem (in MB) for building the index over the table's current rows. */
export async function buildMemoryMb(db: Kysely<DB>, kind: 'postgres' | 'pglite', dimension: number): Promise<number | undefined> {
  const { rows, configured } = (
    await sql<{ rows: number; configured: number }>`
      select (select count(*) from chunks)::float8 as rows,
             pg_size_bytes(current_setting('maintenance_work_mem'))::float8 as configured`.execute(db)
  ).rows[0]!;
  const element = indexedDimension(dimension) * (vectorIndexPrecision(kind) === 'half' ? 2 : 4) + GRAPH_ELEMENT_OVERHEAD;
  const wanted = Math.min(Math.ceil((rows * element * 1.1) / 2 ** 20), MAX_BUILD_MEMORY_MB[kind]);
  return wanted > configured / 2 ** 20 ? wanted : undefined;
}

/**
 * Builds the index for the column's current dimension (the caller has dropped any other), with
 * the memory to build it in one piece (see {@link MAX_BUILD_MEMORY_MB}).
 */
export async function createVectorIndex(db: Kysely<DB>, kind: 'postgres' | 'pglite'): Promise<void> {
  // The memory setting lasts for the transaction only.
  if (!db.isTransaction) return db.transaction().execute((trx) => createVectorIndex(trx, kind));
  const dimension = await embeddingColumnDimension(db);
  const memory = await buildMemoryMb(db, kind, dimension);
  if (memory !== undefined) await sql`select set_config('maintenance_work_mem', ${`${memory}MB`}, true)`.execute(db);
  const key = indexedForm(kind, dimension, sql.ref('embedding'));
  const opclass = sql.raw(vectorIndexPrecision(kind) === 'half' ? 'halfvec_cosine_ops' : 'vector_cosine_ops');
  await sql`create index if not exists ${sql.ref(VECTOR_INDEX)} on chunks using hnsw ((${key}) ${opclass})`.execute(db);
  await sql`comment on index ${sql.ref(VECTOR_INDEX)} is ${sql.lit(vectorIndexSignature(kind, dimension))}`.execute(db);
}

/**
 * Makes the index exist as this version builds it: creates a missing one, rebuilds one built
 * on another expression (an upgrade, or a new dimension). A rebuild reads every vector and
 * blocks the chunks table meanwhile: 30-60 s per 100,000 chunks on PostgreSQL.
 */
export async function ensureVectorIndex(
  db: Kysely<DB>,
  kind: 'postgres' | 'pglite',
  beforeBuild?: (reason: 'missing' | 'outdated') => void,
): Promise<'present' | 'created' | 'rebuilt'> {
  const dimension = await embeddingColumnDimension(db);
  const wanted = vectorIndexSignature(kind, dimension);
  const current = await existingSignature(db, kind, dimension);
  if (current === wanted) return 'present';
  return db.transaction().execute(async (trx) => {
    // Processes starting together: one rebuilds, the others find it done.
    if (kind === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${VECTOR_INDEX}))`.execute(trx);
    const now = await existingSignature(trx, kind, dimension);
    if (now === wanted) return 'present';
    if (beforeBuild && (await sql`select 1 from chunks limit 1`.execute(trx)).rows.length > 0) {
      beforeBuild(now === undefined ? 'missing' : 'outdated');
    }
    await dropVectorIndex(trx);
    await createVectorIndex(trx, kind);
    return now === undefined ? 'created' : 'rebuilt';
  });
}
