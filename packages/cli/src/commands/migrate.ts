import type { Config } from '@kb/config';
import { openStore } from '../store.ts';

export async function migrateCommand(config: Config, out: (line: string) => void): Promise<void> {
  const store = await openStore(config);
  try {
    const done = [
      ...(store.migrations.length ? [`Applied ${store.migrations.length} migration(s): ${store.migrations.join(', ')}`] : []),
      ...(store.vectorIndexBuilt ? ['Built the vector index as this version defines it.'] : []),
    ];
    out(done.length ? done.join(' ') : `${store.database.description}: already up to date.`);
  } finally {
    await store.close();
  }
}
