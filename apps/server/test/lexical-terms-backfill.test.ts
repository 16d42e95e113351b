import { loadConfig } from '@kb/config';
import { createLogger, IngestionService, LocalEmbedder } from '@kb/core';
import { createTestDatabase, testStoreKinds } from '@kb/db/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { startService } from '../src/app.ts';

const kinds = await testStoreKinds();

describe.each(kinds)('hybrid ranking terms of older chunks on %s', (kind) => {
  it('are stored by the server as it starts', async () => {
    const store = await createTestDatabase(kind);
    try {
      const logger = createLogger({ level: 'silent' });
      const ingestion = new IngestionService(store.database, new LocalEmbedder(), logger);
      const docs = Array.from({ length: 3 }, (_, i) => ({ namespace: 'user_docs' as const, slug: `d${i}`, title: `D${i}`, content: `# D${i}\n\nThe cache of build ${i}.\n\n## More\n\nIL-6 levels.\n` }));
      for (const result of await ingestion.ingestMany(docs)) if (result instanceof Error) throw result;
      const read = async () =>
        (await sql<{ id: string; terms: string | null }>`select id, lexical_terms::text as terms from chunks order by id`.execute(store.database.db)).rows;
      const written = await read();
      expect(written.every((r) => r.terms !== null)).toBe(true);
      // As chunks written before the column were.
      await sql`update chunks set lexical_terms = null`.execute(store.database.db);

      const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', KB_ADMIN_PASSWORD: 'test-admin-password-123' });
      const service = await startService(config, { database: store.database, logger });
      try {
        await expect.poll(read, { timeout: 20_000, interval: 100 }).toEqual(written);
      } finally {
        await service.stop(1_000);
      }
    } finally {
      await store.drop();
    }
  }, 60_000);
});
