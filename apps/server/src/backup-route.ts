import type { ServerResponse } from 'node:http';
import type { RequestContext } from '@kb/api';
import { backupStoreOf } from '@kb/core';
import { writeBackup } from '@kb/db';
import type { Services } from './services.ts';

/**
 * GET /api/v1/admin/backup (admin): the whole store as a backup file (docs/backups.md), streamed
 * as it is read. The embedded store belongs to this process, so this is how it is backed up while
 * the server runs; on the embedded store the backup's transaction holds its one connection, and
 * other requests wait until it ends. The body is a stream: a failure after it started cuts the
 * connection, so a client never mistakes a partial file for a backup (its end marker and
 * checksum are missing).
 */
export async function handleBackupRoute(res: ServerResponse, services: Services, context: RequestContext, head: boolean): Promise<void> {
  const name = `kb-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.kbb`;
  res.writeHead(200, {
    'Content-Type': 'application/gzip',
    'Content-Disposition': `attachment; filename="${name}"`,
    'Cache-Control': 'no-store',
  });
  if (head) {
    res.end();
    return;
  }
  const started = Date.now();
  try {
    const result = await writeBackup(backupStoreOf(services.config, services.database), res);
    context.log.info({ tables: result.tables.length, rows: result.tables.reduce((n, t) => n + t.rows, 0), ms: Date.now() - started }, 'backup streamed');
  } catch (error) {
    // The response is cut (writeBackup destroys it): the client sees a stream without its end.
    if (res.destroyed && !res.writableFinished && (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') {
      context.log.warn('backup stream closed by the client before its end');
    } else {
      context.log.error({ err: error }, 'backup failed while streaming');
    }
  }
}
