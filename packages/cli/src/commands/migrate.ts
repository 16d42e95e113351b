import type { Config } from '@kb/config';
import { createEmbedder } from '@kb/core';
import { createDatabase, liveLockOwner, StoreLockedError } from '@kb/db';
import { resolve } from 'node:path';
import { CliError } from '../store.ts';

export async function migrateCommand(config: Config, out: (line: string) => void): Promise<void> {
  if (config.storage.kind === 'pglite') {
    const owner = liveLockOwner(config.storage.dataDir);
    if (owner) throw new CliError(new StoreLockedError(resolve(config.storage.dataDir), owner).message, 2);
  }
  const database = await createDatabase(
    config.storage.kind === 'postgres'
      ? { kind: 'postgres', databaseUrl: config.storage.databaseUrl, poolSize: 1 }
      : { kind: 'pglite', dataDir: config.storage.dataDir },
    { embeddingDimension: createEmbedder(config).dimension },
  );
  try {
    const applied = await database.migrate();
    out(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : `${database.description}: already up to date.`);
  } finally {
    await database.close();
  }
}
