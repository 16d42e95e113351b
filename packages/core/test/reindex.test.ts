import { createLogger } from '@kb/core';
import { embeddingColumnDimension, VECTOR_INDEX } from '@kb/db';
import { createTestDatabase, testStoreKinds } from '@kb/db/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { checkStoreEmbedding, EmbeddingMismatchError, readStoreEmbedding } from '../src/embeddings/index.ts';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { ReindexService } from '../src/embeddings/reindex.service.ts';
import { embeddingText } from '@kb/content';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { SearchService } from '../src/search/search.service.ts';

const kinds = await testStoreKinds();
const logger = createLogger({ level: 'silent' });

describe.each(kinds)('re-embedding the store on %s', (kind) => {
  it('re-embeds every chunk with a new dimension, rebuilds the index and records the embedder', async () => {
    const { database, drop } = await createTestDatabase(kind);
    try {
      const before = new LocalEmbedder();
      await checkStoreEmbedding(database.db, before);
      const ingestion = new IngestionService(database, before, logger);
      const docs = [
        { title: 'Kettles', content: 'Descale the kettle with vinegar once a month.\n\n## Filters\n\nRinse the filter weekly.' },
        { title: 'Bicycles', content: 'Oil the bicycle chain after riding in the rain.' },
        { title: 'Gardens', content: 'Water tomato plants early in the morning.' },
      ];
      for (const [i, doc] of docs.entries()) await ingestion.ingest({ namespace: 'user_docs', slug: `d${i}`, ...doc });
      const stored = Number((await sql<{ n: string }>`select count(*) as n from chunks`.execute(database.db)).rows[0]!.n);
      expect(stored).toBeGreaterThanOrEqual(3);

      const after = new LocalEmbedder({ dimension: 256 });
      await expect(checkStoreEmbedding(database.db, after)).rejects.toBeInstanceOf(EmbeddingMismatchError);
      const reindex = new ReindexService(database, after);
      expect(await reindex.isCurrent()).toBe(false);
      const progress: Array<[number, number]> = [];
      let rebuilds = 0;
      const done = await reindex.reindex({ batch: 2, onProgress: (n, total) => progress.push([n, total]), onIndexRebuild: () => rebuilds++ });
      expect(done).toBe(stored);
      expect(progress.map(([n]) => n)).toEqual(Array.from({ length: Math.ceil(stored / 2) }, (_, i) => Math.min(stored, 2 * (i + 1))));
      expect(progress.every(([, total]) => total === stored)).toBe(true);
      expect(rebuilds).toBe(1);

      expect(await embeddingColumnDimension(database.db)).toBe(256);
      expect(await readStoreEmbedding(database.db)).toEqual({ model: after.model, dimension: 256 });
      expect(await reindex.isCurrent()).toBe(true);
      await checkStoreEmbedding(database.db, after);
      const index = await sql`select 1 from pg_indexes where tablename = 'chunks' and indexname = ${VECTOR_INDEX}`.execute(database.db);
      expect(index.rows).toHaveLength(1);

      // Every chunk holds the new embedder's vector of its text.
      const rows = await sql<{ heading_path: string; content: string; embedding: string }>`
        select heading_path, content, embedding::text as embedding from chunks`.execute(database.db);
      for (const row of rows.rows) {
        const expected = Array.from(after.embedOne(embeddingText(row.heading_path, row.content), 'document'));
        const actual = JSON.parse(row.embedding) as number[];
        expect(actual).toHaveLength(256);
        expect(actual.flatMap((x, i) => (Math.abs(x - expected[i]!) <= Math.abs(expected[i]!) * 1e-6 + 1e-12 ? [] : [{ i, x, expected: expected[i] }]))).toEqual([]);
      }
      const results = await new SearchService(database, after, logger).search({ query: 'oil the bicycle chain', topK: 1 });
      expect(results[0]!.documentTitle).toBe('Bicycles');

      // The same dimension again (--force): the vectors are rewritten, the index kept.
      let again = 0;
      expect(await reindex.reindex({ onIndexRebuild: () => again++ })).toBe(stored);
      expect(again).toBe(0);
    } finally {
      await drop();
    }
  }, 60_000);
});
