import type { Config } from '@kb/config';
import { createEmbedder } from '@kb/core';
import { createDatabase, liveLockOwner, StoreLockedError, type Database } from '@kb/db';
import { resolve } from 'node:path';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * Opens the configured store for a command, migrated. An embedded store held by a running
 * server is never opened: the command stops and says what to do instead.
 */
export async function openStore(config: Config, onMigrated?: (applied: string[], vectorIndexBuilt: boolean) => void): Promise<Database> {
  if (config.storage.kind === 'pglite') {
    const owner = liveLockOwner(config.storage.dataDir);
    if (owner) throw new CliError(new StoreLockedError(resolve(config.storage.dataDir), owner).message, 2);
  }
  let database: Database;
  try {
    database = await createDatabase(
      config.storage.kind === 'postgres'
        ? { kind: 'postgres', databaseUrl: config.storage.databaseUrl, poolSize: 4 }
        : { kind: 'pglite', dataDir: config.storage.dataDir },
      // A new store's vector column takes the configured embedder's dimension.
      { embeddingDimension: createEmbedder(config).dimension },
    );
  } catch (error) {
    if (error instanceof StoreLockedError) throw new CliError(error.message, 2);
    throw error;
  }
  try {
    let vectorIndexBuilt = false;
    const applied = await database.migrate({
      beforeVectorIndexBuild: () => {
        vectorIndexBuilt = true;
        process.stderr.write('Building the vector index (30-60 s per 100,000 chunks on PostgreSQL)...\n');
      },
    });
    onMigrated?.(applied, vectorIndexBuilt);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
