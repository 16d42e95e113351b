import { statfsSync } from 'node:fs';

/** How long a free-space reading is trusted: one statfs a second at most, whatever the write rate. */
const READING_TTL_MS = 1_000;

/**
 * Refused before it was tried: the embedded store's disk has less free space than
 * KB_EMBEDDED_MIN_FREE_MB. Carries SQLSTATE 53100 (disk_full), as the database's own refusal
 * does, so both are answered alike (a 503 saying the disk is full).
 */
export class StoreFullError extends Error {
  readonly code = '53100';

  constructor(message: string) {
    super(message);
    this.name = 'StoreFullError';
  }
}

/**
 * Keeps writes off a nearly full disk. The embedded database reports a full disk on its own
 * (53100, "could not extend file"), but only once a write has met it, possibly in the middle of a
 * checkpoint or its write-ahead log; refusing writes below a margin leaves room for those and for
 * the reads, vacuums and restarts that go on meanwhile.
 */
export class FreeSpaceGuard {
  private reading: { at: number; freeBytes: number } | undefined;

  constructor(
    private readonly dir: string,
    private readonly minFreeBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Free bytes for an unprivileged writer on the store's file system (cached for a second). */
  freeBytes(): number {
    const now = this.now();
    if (!this.reading || now - this.reading.at >= READING_TTL_MS) {
      const stats = statfsSync(this.dir);
      this.reading = { at: now, freeBytes: Number(stats.bavail) * Number(stats.bsize) };
    }
    return this.reading.freeBytes;
  }

  /** Throws StoreFullError when the disk has less free space than the margin. */
  checkWrite(): void {
    if (this.minFreeBytes <= 0) return;
    const free = this.freeBytes();
    if (free < this.minFreeBytes) {
      const mb = (bytes: number) => `${Math.floor(bytes / (1024 * 1024))} MB`;
      throw new StoreFullError(`The store's disk has ${mb(free)} free, under the ${mb(this.minFreeBytes)} kept free (KB_EMBEDDED_MIN_FREE_MB): writes are refused`);
    }
  }
}

/**
 * The store's own functions that change data (its migrations define them): a `select` calling one
 * writes as much as an insert does.
 */
export const WRITING_FUNCTIONS = ['write_documents'] as const;
const CALLS_WRITING_FUNCTION = new RegExp(`\\b(${WRITING_FUNCTIONS.join('|')})\\s*\\(`, 'i');

/**
 * Whether a statement changes data (and so needs disk). Reads, transaction control and settings do
 * not; nor do `create ... if not exists` (what opening an existing store runs) and VACUUM (which
 * gives space back).
 */
export function isWriteStatement(sql: string): boolean {
  const text = sql.trimStart().slice(0, 4_000);
  if (/^create\b[^;(]*\bif\s+not\s+exists\b/i.test(text)) return false;
  if (/^(insert|update|delete|merge|copy|create|alter|drop|truncate|reindex|cluster|refresh)\b/i.test(text)) return true;
  if (/^(select|with)\b/i.test(text) && CALLS_WRITING_FUNCTION.test(text)) return true;
  // A data-modifying common table expression: with ... as (insert/update/delete ...).
  return /^with\b/i.test(text) && /\b(insert\s+into|update\s+\S+\s+set|delete\s+from)\b/i.test(text);
}
