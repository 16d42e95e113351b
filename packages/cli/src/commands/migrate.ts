import type { Config } from '@kb/config';
import { openStore } from '../store.ts';

export async function migrateCommand(config: Config, out: (line: string) => void): Promise<void> {
  let applied: string[] = [];
  const database = await openStore(config, (names) => (applied = names));
  try {
    out(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : `${database.description}: already up to date.`);
  } finally {
    await database.close();
  }
}
