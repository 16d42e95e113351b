import type { Config } from '@kb/config';
import { openStore } from '../store.ts';

export async function migrateCommand(config: Config, out: (line: string) => void): Promise<void> {
  let applied: string[] = [];
  let indexBuilt = false;
  const database = await openStore(config, (names, built) => {
    applied = names;
    indexBuilt = built;
  });
  try {
    const done = [
      ...(applied.length ? [`Applied ${applied.length} migration(s): ${applied.join(', ')}`] : []),
      ...(indexBuilt ? ['Built the vector index as this version defines it.'] : []),
    ];
    out(done.length ? done.join(' ') : `${database.description}: already up to date.`);
  } finally {
    await database.close();
  }
}
