import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/**
 * The backup file (docs/backups.md): gzip around lines of UTF-8 text.
 *
 *   {"format":"kb-backup","version":1,...header}             what made it and what it holds
 *   {"table":"namespaces","columns":[...]}                    then, for each table in load order,
 *   <rows in PostgreSQL COPY text format, one a line>
 *   \.                                                        the end of its rows (as in COPY)
 *   {"end":"namespaces","rows":3,"checksum":"<hex>"}
 *   {"end":"backup","tables":14,"sha256":"<hex>"}             the SHA-256 of every byte above it
 *
 * A table's checksum is the sum (mod 2^256) of its rows' SHA-256 digests: it does not depend on
 * the rows' order, so a table read from either store in any order has the same one.
 */
export const BACKUP_FORMAT = 'kb-backup';
export const BACKUP_FORMAT_VERSION = 1;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  /** The store it was taken from. */
  store: 'postgres' | 'embedded';
  /** Migrations applied to that store: the schema its rows fit. */
  migrations: string[];
  /** The store's embedding model and dimension: its vectors are only usable with that embedder. */
  embedding: { model: string | null; dimension: number };
  /** Tables in load order, with their row counts. */
  tables: Array<{ name: string; columns: string[]; rows: number }>;
}

export interface TableSummary {
  name: string;
  rows: number;
  checksum: string;
}

/** A file that is not a backup this version can read, or is damaged: the message says which. */
export class BackupFileError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BackupFileError';
  }
}

const MASK = (1n << 256n) - 1n;

/** A table's content checksum: the sum of its rows' digests, whatever their order. */
export class TableDigest {
  private sum = 0n;
  private count = 0;
  /** Adds a row: its COPY text line without the newline. */
  add(line: Uint8Array): void {
    this.sum += BigInt(`0x${createHash('sha256').update(line).digest('hex')}`);
    // Kept small: a bigint that grows with every row costs more to add to.
    if (++this.count % 4096 === 0) this.sum &= MASK;
  }
  hex(): string {
    return (this.sum & MASK).toString(16).padStart(64, '0');
  }
}

/**
 * Splits a byte stream into lines (without their `\n`), calling `line` for each; a line that
 * spans chunks is joined. `flush()` returns what is left after the last newline.
 */
export class LineSplitter {
  private partial: Buffer | undefined;
  push(chunk: Buffer, line: (bytes: Buffer) => void): void {
    let start = 0;
    let end = chunk.indexOf(10);
    if (end !== -1 && this.partial) {
      line(Buffer.concat([this.partial, chunk.subarray(0, end)]));
      this.partial = undefined;
      start = end + 1;
      end = chunk.indexOf(10, start);
    }
    while (end !== -1) {
      line(chunk.subarray(start, end));
      start = end + 1;
      end = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.partial = this.partial ? Buffer.concat([this.partial, chunk.subarray(start)]) : Buffer.from(chunk.subarray(start));
  }
  flush(): Buffer | undefined {
    const rest = this.partial;
    this.partial = undefined;
    return rest;
  }
}

export type BackupEvent =
  | { kind: 'header'; header: BackupHeader }
  | { kind: 'table'; name: string; columns: string[] }
  /** Rows of the current table, each a COPY text line ending in a newline. */
  | { kind: 'rows'; lines: Buffer[] }
  | { kind: 'end'; table: TableSummary }
  | { kind: 'done'; tables: TableSummary[] };

const END_OF_ROWS = '\\.';

function parseJsonLine(line: Buffer, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new BackupFileError(`The backup file is damaged: ${what} is not readable.`);
}

/** The decompressed content of a backup stream; a stream that is not gzip is read as it is. */
async function* content(input: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const iterator = input[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new BackupFileError('The backup file is empty.');
  const rest = { [Symbol.asyncIterator]: () => iterator };
  const head = first.value;
  if (head.length < 2 || head[0] !== 0x1f || head[1] !== 0x8b) {
    yield head;
    yield* rest;
    return;
  }
  const gunzip = createGunzip();
  // Resolves when the stream takes more, or is gone (failed, or its reader stopped).
  const room = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        gunzip.off('drain', done).off('close', done);
        resolve();
      };
      gunzip.on('drain', done).on('close', done);
    });
  const feed = (async () => {
    try {
      for (const chunk of [head]) if (!gunzip.write(chunk)) await room();
      for await (const chunk of rest) {
        if (gunzip.destroyed) return;
        if (!gunzip.write(chunk)) await room();
      }
      gunzip.end();
    } catch (error) {
      gunzip.destroy(error as Error);
    }
  })();
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    if (error instanceof BackupFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'Z_BUF_ERROR') throw new BackupFileError('The backup file ends early (its compressed data stops midway): it was cut short while being written or copied.', { cause: error });
    if (code?.startsWith('Z_')) throw new BackupFileError(`The backup file is damaged: its compressed data is corrupt (${(error as Error).message}).`, { cause: error });
    throw error;
  } finally {
    await feed;
  }
}

/**
 * Reads a backup stream as events, checking it as it goes: the header's format and version
 * first (before any row is read), then each table's row count and checksum, then the whole
 * file's SHA-256 at its end. Any mismatch is a {@link BackupFileError}; a caller that writes rows
 * as they come does so in a transaction it rolls back then.
 */
export async function* readBackupEvents(input: Readable | AsyncIterable<Buffer>, options: { rowsPerEvent?: number } = {}): AsyncGenerator<BackupEvent> {
  const rowsPerEvent = options.rowsPerEvent ?? 256;
  const whole: Hash = createHash('sha256');
  const splitter = new LineSplitter();
  const tables: TableSummary[] = [];
  let header: BackupHeader | undefined;
  let table: { name: string; columns: string[]; digest: TableDigest; rows: number; inRows: boolean } | undefined;
  let trailer: Record<string, unknown> | undefined;
  let wholeAtTrailer = '';
  let batch: Buffer[] = [];
  const pending: BackupEvent[] = [];

  const onLine = (line: Buffer) => {
    if (trailer) throw new BackupFileError('The backup file is damaged: it goes on after its end.');
    if (table?.inRows) {
      if (line.length === 2 && line[0] === 0x5c && line[1] === 0x2e) {
        table.inRows = false;
        if (batch.length) pending.push({ kind: 'rows', lines: batch });
        batch = [];
      } else {
        table.digest.add(line);
        table.rows++;
        const withNewline = Buffer.allocUnsafe(line.length + 1);
        line.copy(withNewline);
        withNewline[line.length] = 10;
        batch.push(withNewline);
        if (batch.length >= rowsPerEvent) {
          pending.push({ kind: 'rows', lines: batch });
          batch = [];
        }
      }
      whole.update(line).update('\n');
      return;
    }
    if (!header) {
      const value = parseJsonLine(line, 'its first line');
      if (value.format !== BACKUP_FORMAT) throw new BackupFileError('This is not a kb backup file (its first line does not name the kb-backup format).');
      if (value.version !== BACKUP_FORMAT_VERSION) {
        throw new BackupFileError(
          `The backup file is in format version ${String(value.version)}; this version of kb reads format version ${BACKUP_FORMAT_VERSION} only.` +
            (Number(value.version) > BACKUP_FORMAT_VERSION ? ' Restore it with the version of kb that made it, or a newer one.' : ''),
        );
      }
      header = value as unknown as BackupHeader;
      pending.push({ kind: 'header', header });
      whole.update(line).update('\n');
      return;
    }
    const value = parseJsonLine(line, 'a table marker');
    if (value.end === 'backup') {
      if (table) throw new BackupFileError(`The backup file is damaged: table ${table.name} has no end.`);
      trailer = value;
      wholeAtTrailer = whole.digest('hex');
      return;
    }
    if (typeof value.table === 'string') {
      if (table) throw new BackupFileError(`The backup file is damaged: table ${table.name} has no end.`);
      table = { name: value.table, columns: value.columns as string[], digest: new TableDigest(), rows: 0, inRows: true };
      pending.push({ kind: 'table', name: table.name, columns: table.columns });
    } else if (typeof value.end === 'string' && table && value.end === table.name) {
      const checksum = table.digest.hex();
      if (value.rows !== table.rows || value.checksum !== checksum) {
        throw new BackupFileError(
          `The backup file is damaged: table ${table.name} holds ${table.rows} rows with checksum ${checksum.slice(0, 12)}…, but it says ${String(value.rows)} rows with checksum ${String(value.checksum).slice(0, 12)}….`,
        );
      }
      const summary = { name: table.name, rows: table.rows, checksum };
      tables.push(summary);
      pending.push({ kind: 'end', table: summary });
      table = undefined;
    } else {
      throw new BackupFileError('The backup file is damaged: a table marker is out of place.');
    }
    whole.update(line).update('\n');
  };

  for await (const chunk of content(input as AsyncIterable<Buffer>)) {
    splitter.push(chunk, onLine);
    while (pending.length) yield pending.shift()!;
  }
  const rest = splitter.flush();
  if (rest?.length) onLine(rest);
  while (pending.length) yield pending.shift()!;
  if (!header) throw new BackupFileError('The backup file is empty.');
  if (!trailer) throw new BackupFileError('The backup file ends early (it has no end marker): it was cut short while being written or copied.');
  if (trailer.sha256 !== wholeAtTrailer) {
    throw new BackupFileError(`The backup file is damaged: its checksum does not match its content (SHA-256 ${wholeAtTrailer.slice(0, 12)}…, recorded ${String(trailer.sha256).slice(0, 12)}…).`);
  }
  if (trailer.tables !== tables.length) throw new BackupFileError(`The backup file is damaged: it holds ${tables.length} tables but says ${String(trailer.tables)}.`);
  yield { kind: 'done', tables };
}

export const END_OF_ROWS_LINE = `${END_OF_ROWS}\n`;
