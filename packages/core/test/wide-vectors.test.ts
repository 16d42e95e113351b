import { createLogger } from '@kb/core';
import { createDatabase } from '@kb/db';
import { createEmptyPostgresDatabase, testStoreKinds } from '@kb/db/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { SearchService } from '../src/search/search.service.ts';

const kinds = await testStoreKinds();

/**
 * Stores of more dimensions than a full-precision HNSW index holds (2,000): their index holds
 * the vectors' first 512 components on both stores, and searches must order by the indexed
 * expression.
 */
describe.each(kinds)('a 2,048-dimension store on %s', (kind) => {
  it('indexes, searches through the index and ranks the matching chunk first', async () => {
    const empty = kind === 'postgres' ? await createEmptyPostgresDatabase() : undefined;
    const database = empty
      ? await createDatabase({ kind: 'postgres', databaseUrl: empty.url }, { embeddingDimension: 2048 })
      : await createDatabase({ kind: 'pglite-memory' }, { embeddingDimension: 2048 });
    try {
      await database.migrate();
      const embedder = new LocalEmbedder({ dimension: 2048 });
      const logger = createLogger({ level: 'silent' });
      const ingestion = new IngestionService(database, embedder, logger);
      const docs = [
        { title: 'Kettles', content: 'Descale the kettle with vinegar once a month.' },
        { title: 'Bicycles', content: 'Oil the bicycle chain after riding in the rain.' },
        { title: 'Gardens', content: 'Water tomato plants early in the morning.' },
      ];
      for (const [i, doc] of docs.entries()) await ingestion.ingest({ namespace: 'user_docs', slug: `d${i}`, ...doc });
      const search = new SearchService(database, embedder, logger);
      const results = await search.search({ query: 'how to oil a bicycle chain', topK: 2 });
      expect(results[0]!.documentTitle).toBe('Bicycles');
      expect(results[0]!.score).toBeGreaterThan(0.3);
      const hybrid = await search.search({ query: 'descale kettle', topK: 2, mode: 'hybrid' });
      expect(hybrid[0]!.documentTitle).toBe('Kettles');

      const plan = await database.withVectorSearch((db) => {
        const literal = `[${Array.from(embedder.embedOne('bicycle', 'query')).join(',')}]`;
        return sql<{ 'QUERY PLAN': string }>`explain select id from chunks
          order by ${database.vectorDistance(2048, sql.ref('embedding'), literal)} limit 2`.execute(db);
      });
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/chunks_embedding_idx/);
    } finally {
      await database.close();
      await empty?.drop();
    }
  }, 60_000);
});
