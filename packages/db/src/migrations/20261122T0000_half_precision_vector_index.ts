import { type Kysely, type Migration } from 'kysely';
import { createVectorIndex, dropVectorIndex, vectorIndexPrecision } from '../vector-index.ts';

/**
 * On PostgreSQL the HNSW index holds half-precision copies of the vectors: the full-precision
 * index is rebuilt. It is rebuilt as vector-index.ts builds it today, so an older store is rebuilt
 * once, here, and not again at start (ensureVectorIndex). Embedded stores keep theirs until then.
 */
export function halfPrecisionVectorIndexMigration(kind: 'postgres' | 'pglite'): Migration {
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>) {
      if (vectorIndexPrecision(kind) !== 'half') return;
      await dropVectorIndex(db);
      await createVectorIndex(db, kind);
    },
  };
}
