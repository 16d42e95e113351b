/** True when a database error is a unique-constraint violation (pg and PGlite both report 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/**
 * Why the store could not serve a statement, when the store (not the statement) is at fault:
 * `unreachable` (PostgreSQL restarting, refusing or dropping connections, out of connections),
 * `disk-full` (no space left to write). Such failures pass: the service answers them with a 503
 * and a sentence, never a 500, and a job meeting one retries later.
 */
export type StoreFailure = 'unreachable' | 'disk-full';

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** What node-postgres says when a connection ends under it or cannot be had in time. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

export function storeFailureOf(error: unknown): StoreFailure | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      // SQLSTATE 53100 disk_full; an I/O error that says so (PGlite's file system, a full tmpfs).
      if (code === '53100' || code === 'ENOSPC' || code === 'EDQUOT') return 'disk-full';
      // 08: connection exception; 57P01-03: shutting down or starting up; 53300: too many connections.
      if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return 'unreachable';
      if (NETWORK_CODES.has(code)) return 'unreachable';
    }
    if (typeof message === 'string') {
      if (/no space left on device|disk quota exceeded/i.test(message)) return 'disk-full';
      if (CONNECTION_MESSAGES.some((m) => message.includes(m))) return 'unreachable';
    }
  }
  return undefined;
}
