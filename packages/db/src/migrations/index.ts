import type { Migration, MigrationProvider } from 'kysely';
import { initialMigration } from './20261121T0000_initial.ts';

export interface MigrationOptions {
  /** Dimension of the embedding column for a store created by these migrations. */
  embeddingDimension: number;
}

/** Every migration, in order. Names are timestamps; a migration never changes once released. */
export function migrationProvider(options: MigrationOptions): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '20261121T0000_initial': initialMigration(options.embeddingDimension),
      };
    },
  };
}
