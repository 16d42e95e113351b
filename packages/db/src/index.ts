export { createDatabase, DEFAULT_EMBEDDING_DIMENSION, MigrationError } from './database.ts';
export { prepared } from './prepared.ts';
export type { Database, DatabaseOptions, ReadStore, StorageOptions, StoreStats } from './database.ts';
export { readFromPrimary, readsPinnedToPrimary, serverUnavailable } from './replicas.ts';
export type { ReplicaOptions, ReplicaState, ReplicaStatus } from './replicas.ts';
export type { DB, JobProgress, JobStatus, SourcePageStatus, SourceSyncStats, SourceSyncStatus } from './schema.ts';
export type { StoredSource } from './tables/conversations.ts';
export type { FaqCacheSource } from './tables/faq-cache.ts';
export { acquireStoreLock, liveLockOwner, readLockOwner, StoreLockedError } from './store-lock.ts';
export type { LockOwner, StoreLock } from './store-lock.ts';
export { isUniqueViolation, storeFailureOf } from './errors.ts';
export { FreeSpaceGuard, isWriteStatement, StoreFullError } from './free-space.ts';
export type { StoreFailure } from './errors.ts';
export { DEFERRED_INDEX_MIN_CHUNKS } from './bulk-load.ts';
export type { BulkLoad } from './bulk-load.ts';
export { EmbeddedDatabaseError } from './pglite-thread.ts';
// What depends on the engine (the indexed distance, building the index) is reached through Database.
export {
  dropVectorIndex,
  embeddingColumnDimension,
  exactVectorDistance,
  indexedDimension,
  MAX_INDEXED_DIMENSION,
  VECTOR_INDEX,
  shortlistSize,
} from './vector-index.ts';
export { toVectorArrayBinary, toVectorBinary, toVectorLiteral } from './vector.ts';
export * from './backup/index.ts';
