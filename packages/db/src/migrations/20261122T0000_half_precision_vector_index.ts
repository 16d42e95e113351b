import { type Kysely, type Migration } from 'kysely';
import { createVectorIndex, dropVectorIndex, vectorIndexPrecision, embeddingColumnDimension } from '../vector-index.ts';

/**
 * On PostgreSQL the HNSW index holds half-precision copies of the vectors (see vector-index.ts):
 * the full-precision index is rebuilt that way. Embedded stores keep theirs.
 */
export function halfPrecisionVectorIndexMigration(kind: 'postgres' | 'pglite'): Migration {
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>) {
      if (vectorIndexPrecision(kind, await embeddingColumnDimension(db)) !== 'half') return;
      await dropVectorIndex(db);
      await createVectorIndex(db, kind);
    },
  };
}
