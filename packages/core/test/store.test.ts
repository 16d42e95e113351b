import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@kb/config';
import { createLogger, EmbeddingMismatchError, openStore } from '@kb/core';
import { StoreLockedError } from '@kb/db';
import { createTestDatabase } from '@kb/db/testing';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = mkdtempSync(join(tmpdir(), 'kb-store-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('opening the configured store', () => {
  const lines: Array<{ msg: string; migrations?: string[] }> = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  const config = (env: Record<string, string> = {}) => loadConfig({ KB_DATA_DIR: dataDir, ...env });

  it('migrates a new store, records its embedder, and holds it until closed', async () => {
    const store = await openStore(config(), { logger });
    try {
      expect(store.migrations.length).toBeGreaterThan(0);
      expect(lines.find((l) => l.msg === 'database migrated')?.migrations).toEqual(store.migrations);
      expect(store.embedder.dimension).toBe(1024);
      await expect(openStore(config(), { logger })).rejects.toBeInstanceOf(StoreLockedError);
    } finally {
      await store.close();
    }
    const again = await openStore(config(), { logger });
    expect(again.migrations).toEqual([]);
    expect(again.vectorIndexBuilt).toBe(false);
    await again.close();
  }, 60_000);

  it('refuses a store another embedder made, closing it, unless told not to check', async () => {
    await expect(openStore(config({ KB_EMBEDDING_DIM: '256' }), { logger })).rejects.toBeInstanceOf(EmbeddingMismatchError);
    // Closed on the way out: the next opening gets the store.
    const unchecked = await openStore(config({ KB_EMBEDDING_DIM: '256' }), { logger, checkEmbedding: false });
    expect(unchecked.embedder.dimension).toBe(256);
    await unchecked.close();
  }, 60_000);

  it('leaves a database it was handed open', async () => {
    const test = await createTestDatabase('pglite');
    try {
      const store = await openStore(config(), { logger, database: test.database });
      expect(store.database).toBe(test.database);
      await store.close();
      await test.database.ping();
    } finally {
      await test.drop();
    }
  }, 60_000);
});
