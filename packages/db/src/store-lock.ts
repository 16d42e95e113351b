import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * An embedded store belongs to one process. Two PGlite processes on one directory lose
 * writes silently, so the owner holds a lock file naming its pid; anyone else refuses to
 * open the directory. A lock left by a dead process on this host is taken over.
 */

export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
  command: string;
}

export class StoreLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    super(
      `The embedded store in ${dataDir} is in use by another process (pid ${owner.pid}, ${owner.command}, since ${owner.startedAt}). ` +
        'An embedded store can be opened by one process at a time. Stop that process first, ' +
        'or use the running server over HTTP (for keys: POST /api/v1/keys with an admin key), ' +
        'or run the service on PostgreSQL (set DATABASE_URL), where any number of processes can share the database.',
    );
    this.name = 'StoreLockedError';
  }
}

export interface StoreLock {
  readonly path: string;
  release(): void;
}

const LOCK_FILE = 'kb.lock';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLockOwner(dataDir: string): LockOwner | null {
  try {
    return JSON.parse(readFileSync(join(resolve(dataDir), LOCK_FILE), 'utf8')) as LockOwner;
  } catch {
    return null;
  }
}

/** The owner of the store's lock if a live process holds it, else null. */
export function liveLockOwner(dataDir: string): LockOwner | null {
  const owner = readLockOwner(dataDir);
  if (!owner) return null;
  if (owner.hostname === hostname() && !isAlive(owner.pid)) return null;
  if (owner.pid === process.pid && owner.hostname === hostname()) return null;
  return owner;
}

export function acquireStoreLock(dataDir: string, command = process.argv.slice(1).join(' ')): StoreLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString(), command };

  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      let released = false;
      return {
        path,
        release() {
          if (released) return;
          released = true;
          const owner = readLockOwner(dir);
          if (owner && owner.pid === me.pid && owner.startedAt === me.startedAt) {
            try {
              unlinkSync(path);
            } catch {
              // already gone
            }
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readLockOwner(dir);
      if (owner && (owner.hostname !== hostname() || isAlive(owner.pid))) {
        throw new StoreLockedError(dir, owner);
      }
      // Stale lock of a dead process (or a half-written file): move it aside atomically so
      // that of two processes taking it over at once only one succeeds in creating the next.
      try {
        renameSync(path, `${path}.stale-${process.pid}`);
        unlinkSync(`${path}.stale-${process.pid}`);
      } catch {
        // another process took it over first; try again
      }
    }
  }
  const owner = readLockOwner(dir);
  throw new StoreLockedError(dir, owner ?? { pid: -1, hostname: 'unknown', startedAt: 'unknown', command: 'unknown' });
}
