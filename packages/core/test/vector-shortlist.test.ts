import { createDatabase, toVectorLiteral, type Database } from '@kb/db';
import { createEmptyPostgresDatabase, testStoreKinds } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchRepository } from '../src/search/search.repository.ts';

const kinds = await testStoreKinds();
const DIM = 2048;

/** A unit vector with the given components set (index -> value), normalised. */
function unit(components: Record<number, number>): number[] {
  const v = new Array<number>(DIM).fill(0);
  for (const [i, x] of Object.entries(components)) v[Number(i)] = x;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/**
 * The index holds the first 1,024 components of a 2,048-component store: its order is only a
 * shortlist, and what a search returns must be the order of the whole vectors.
 */
describe.each(kinds)('nearest chunks of a store indexed by prefixes, on %s', (kind) => {
  let database: Database;
  let dropDatabase: (() => Promise<void>) | undefined;
  const query = unit({ 0: 1, 1500: 1 });
  // Alike in the indexed prefix only: prefix cosine 1, whole cosine 0.71.
  const prefixTwin = unit({ 0: 1 });
  // Less alike in the prefix (0.71) but closer as a whole (0.85).
  const wholeMatch = unit({ 0: 0.5, 1: 0.5, 1500: 0.7 });

  beforeAll(async () => {
    const empty = kind === 'postgres' ? await createEmptyPostgresDatabase() : undefined;
    dropDatabase = empty?.drop;
    database = empty
      ? await createDatabase({ kind: 'postgres', databaseUrl: empty.url }, { embeddingDimension: DIM })
      : await createDatabase({ kind: 'pglite-memory' }, { embeddingDimension: DIM });
    await database.migrate();
    const db = database.db;
    await db.insertInto('namespaces').values([{ id: 'user_docs' }, { id: 'tech_docs' }]).execute();
    const doc = await db
      .insertInto('documents')
      .values({ namespace: 'user_docs', slug: 's', title: 'T', metadata: JSON.stringify({}), content_hash: 'h' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const rows = [
      { content: 'prefix twin', embedding: prefixTwin },
      { content: 'whole match', embedding: wholeMatch },
      // Unrelated chunks.
      ...Array.from({ length: 30 }, (_, i) => ({ content: `other ${i}`, embedding: unit({ [100 + i]: 1, [1200 + i]: 1 }) })),
    ];
    await db
      .insertInto('chunks')
      .values(rows.map((r, i) => ({ document_id: doc.id, namespace: 'user_docs', ordinal: i, heading_path: 'T', content: r.content, token_count: 2, embedding: toVectorLiteral(r.embedding) })))
      .execute();
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await dropDatabase?.();
  });

  it('reranks the shortlist by the whole vectors and scores with their cosine', async () => {
    const repository = new SearchRepository(database);
    const hits = await repository.nearest(query, null, 2);
    expect(hits.map((h) => h.content)).toEqual(['whole match', 'prefix twin']);
    const cosine = (v: number[]) => v.reduce((s, x, i) => s + x * query[i]!, 0);
    expect(1 - hits[0]!.raw).toBeCloseTo(cosine(wholeMatch), 5);
    expect(1 - hits[1]!.raw).toBeCloseTo(cosine(prefixTwin), 5);
  });

  it('ranks exactly what an exact search ranks for a larger limit', async () => {
    const indexed = await new SearchRepository(database).nearest(query, ['user_docs'], 10);
    const exact = await new SearchRepository(database, { exact: true }).nearest(query, ['user_docs'], 10);
    expect(indexed.map((h) => h.chunkId)).toEqual(exact.map((h) => h.chunkId));
  });

  it('returns nothing for a namespace without chunks', async () => {
    expect(await new SearchRepository(database).nearest(query, ['tech_docs'], 5)).toEqual([]);
  });
});
