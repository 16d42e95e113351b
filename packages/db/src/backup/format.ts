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
 * The longest line a backup may hold: one table row in COPY text format. A row holds at most one
 * document (the largest the service takes, an OpenAPI file, is 25 MB by default, and COPY's escapes
 * can double it) with its vector, so this leaves a wide margin while bounding the memory a damaged
 * or hostile file can make a restore hold.
 */
export const MAX_BACKUP_LINE_BYTES = 256 * 1024 * 1024;

/**
 * Splits a byte stream into lines (without their `\n`), calling `line` for each. Each byte is
 * scanned once and copied at most twice (kept, then joined once its line ends), however many
 * chunks a line spans: the work is linear in the stream. A line longer than `maxLineBytes` stops
 * the split with the error `tooLong` makes (given the line's number, from 1), before it is held.
 * `flush()` returns what is left after the last newline.
 */
export class LineSplitter {
  /** The current line's bytes so far, from earlier chunks. */
  private parts: Buffer[] = [];
  private partLength = 0;
  private lineNumber = 1;
  /** Bytes copied to keep or join lines that span chunks (a measure of the work done). */
  copiedBytes = 0;

  constructor(
    private readonly maxLineBytes = MAX_BACKUP_LINE_BYTES,
    private readonly tooLong: (lineNumber: number, maxLineBytes: number) => Error = (n, max) => new Error(`Line ${n} is longer than ${max} bytes`),
  ) {}

  push(chunk: Buffer, line: (bytes: Buffer) => void): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      this.check(end - start);
      if (this.parts.length > 0) {
        this.parts.push(chunk.subarray(start, end));
        const joined = Buffer.concat(this.parts, this.partLength + end - start);
        this.copiedBytes += joined.length;
        this.parts = [];
        this.partLength = 0;
        line(joined);
      } else {
        line(chunk.subarray(start, end));
      }
      this.lineNumber++;
      start = end + 1;
    }
    if (start < chunk.length) {
      this.check(chunk.length - start);
      // A copy: the caller may reuse the chunk's memory.
      const kept = Buffer.from(chunk.subarray(start));
      this.copiedBytes += kept.length;
      this.parts.push(kept);
      this.partLength += kept.length;
    }
  }

  flush(): Buffer | undefined {
    if (this.parts.length === 0) return undefined;
    const rest = Buffer.concat(this.parts, this.partLength);
    this.parts = [];
    this.partLength = 0;
    return rest;
  }

  private check(more: number): void {
    if (this.partLength + more > this.maxLineBytes) {
      this.parts = [];
      this.partLength = 0;
      throw this.tooLong(this.lineNumber, this.maxLineBytes);
    }
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

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

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
export async function* readBackupEvents(input: Readable | AsyncIterable<Buffer>, options: { rowsPerEvent?: number; maxLineBytes?: number } = {}): AsyncGenerator<BackupEvent> {
  const rowsPerEvent = options.rowsPerEvent ?? 256;
  const whole: Hash = createHash('sha256');
  const splitter = new LineSplitter(
    options.maxLineBytes ?? MAX_BACKUP_LINE_BYTES,
    (n, max) => new BackupFileError(`The backup file is damaged: line ${n} is longer than ${formatBytes(max)}, the most one line of a backup holds (one table row).`),
  );
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
