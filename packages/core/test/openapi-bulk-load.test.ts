import { stopWorkerPool } from '@kb/content';
import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import type { Embedder, EmbeddingInputType } from '../src/embeddings/types.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { OpenApiIngestion } from '../src/openapi/openapi-ingestion.ts';
import { createLogger } from '../src/logger.ts';
import { SearchService } from '../src/search/search.service.ts';

const kinds = await testStoreKinds();
const logger = createLogger({ level: 'silent' });
afterAll(() => stopWorkerPool());

const RESOURCES = ['invoice', 'customer', 'refund', 'payout', 'webhook', 'coupon', 'dispute', 'balance', 'mandate', 'quote', 'receipt', 'tax rate'];

/** A spec of 12 operations whose long descriptions make several chunks each. */
function spec(extra = ''): string {
  const paths: Record<string, unknown> = {};
  for (const [i, resource] of RESOURCES.entries()) {
    const sentences = Array.from(
      { length: 40 },
      (_, j) => `Step ${j + 1} of handling a ${resource} checks the ${resource} ledger entry number ${j} before it is settled.`,
    );
    paths[`/v1/${resource.replace(' ', '_')}s`] = {
      get: { operationId: `List${i}`, summary: `List ${resource}s`, description: `${sentences.join(' ')}${i === 0 ? extra : ''}` },
    };
  }
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'Ledger API', version: '1.0' }, paths });
}

class ObservedEmbedder implements Embedder {
  readonly inner = new LocalEmbedder();
  readonly model = this.inner.model;
  readonly dimension = this.inner.dimension;
  onDocumentCall?: (texts: readonly string[]) => void;
  async embed(texts: readonly string[], inputType: EmbeddingInputType) {
    if (inputType === 'document') this.onDocumentCall?.(texts);
    return this.inner.embed(texts, inputType);
  }
}

describe.each(kinds)('a large OpenAPI spec on %s', (kind) => {
  let testDb: TestDatabase;
  let embedder: ObservedEmbedder;
  let openapi: OpenApiIngestion;

  beforeEach(async () => {
    // 10 new chunks make a large load here (each operation is several).
    testDb = await createTestDatabase(kind, { bulkLoadMinChunks: 10 });
    embedder = new ObservedEmbedder();
    openapi = new OpenApiIngestion(new IngestionService(testDb.database, embedder, logger), logger);
  });
  afterEach(() => testDb.drop());

  const vectorIndexExists = async () =>
    (await sql`select 1 from pg_indexes where tablename = 'chunks' and indexname = 'chunks_embedding_idx'`.execute(testDb.database.db)).rows.length > 0;

  it('is written with the vector index set aside on the embedded store, which is built before the answer', async () => {
    const deferred: boolean[] = [];
    embedder.onDocumentCall = () => deferred.push(testDb.database.vectorIndexDeferred());
    const result = await openapi.ingest({ spec: spec(), format: 'json', namespace: 'api_endpoints' });
    expect(result).toEqual({ upserted: 12, unchanged: 0, total: 12 });
    expect(deferred.length).toBe(12);
    expect(deferred.every((d) => d === (kind === 'pglite'))).toBe(true);
    expect(testDb.database.vectorIndexDeferred()).toBe(false);
    expect(await vectorIndexExists()).toBe(true);
    const chunks = await sql<{ n: number }>`select count(*)::int as n from chunks`.execute(testDb.database.db);
    expect(chunks.rows[0]!.n).toBeGreaterThanOrEqual(24);

    const search = new SearchService(testDb.database, embedder, logger);
    const hits = await search.search({ query: 'payout ledger entry', namespaces: ['api_endpoints'], topK: 3 });
    expect(hits[0]?.documentTitle).toMatch(/payouts/);

    // An unchanged spec expects no new chunks: the index stays.
    deferred.length = 0;
    expect(await openapi.ingest({ spec: spec(), format: 'json', namespace: 'api_endpoints' })).toEqual({ upserted: 0, unchanged: 12, total: 12 });
    expect(deferred).toEqual([]);
    expect(await vectorIndexExists()).toBe(true);
  });

  it('builds the index again when the spec fails midway', async () => {
    let setAside = false;
    embedder.onDocumentCall = (texts) => {
      setAside ||= testDb.database.vectorIndexDeferred();
      if (texts.some((t) => t.includes('POISON'))) throw new Error('embedding service down');
    };
    await expect(openapi.ingest({ spec: spec(' POISON'), format: 'json', namespace: 'api_endpoints' })).rejects.toThrow(/1 of 12 operations/);
    expect(setAside).toBe(kind === 'pglite');
    expect(testDb.database.vectorIndexDeferred()).toBe(false);
    expect(await vectorIndexExists()).toBe(true);
  });
});
