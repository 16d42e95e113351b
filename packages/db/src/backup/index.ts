export { readBackupTables, type BackupTable } from './catalog.ts';
export { decodeCopyRow, encodeCopyRow } from './copy-text.ts';
export { writeBackup, type BackupProgress, type BackupResult, type WriteBackupOptions } from './dump.ts';
export {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  BackupFileError,
  readBackupEvents,
  type BackupEvent,
  type BackupHeader,
  type TableSummary,
} from './format.ts';
export { restoreBackup, RestoreRefusedError, type RestoreOptions, type RestoreResult } from './load.ts';
export { withStoreSession, type BackupStore } from './session.ts';
