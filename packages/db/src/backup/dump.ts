import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { PassThrough, type Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { sql } from 'kysely';
import { readBackupTables, readEmbeddingSettings, readMigrations, type BackupTable } from './catalog.ts';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, END_OF_ROWS_LINE, LineSplitter, TableDigest, type BackupHeader, type TableSummary } from './format.ts';
import { withStoreSession, type AnyKysely, type BackupStore } from './session.ts';

export interface BackupProgress {
  table: string;
  /** Rows of this table written so far, and its total. */
  tableRows: number;
  tableTotal: number;
  /** Rows of every table written so far, and the total. */
  rows: number;
  total: number;
}

export interface BackupResult {
  header: BackupHeader;
  tables: TableSummary[];
}

export interface WriteBackupOptions {
  onProgress?(progress: BackupProgress): void;
  /** gzip level (default 1: the rows are mostly numbers, and higher levels cost far more time than they save space). */
  level?: number;
  /** Write the lines uncompressed (a move hands them straight to a restore). */
  uncompressed?: boolean;
}

async function countRows(trx: AnyKysely, tables: BackupTable[]): Promise<number[]> {
  if (tables.length === 0) return [];
  const parts = tables.map((table, i) => `(select count(*) from "${table.name.replaceAll('"', '""')}"${table.where === undefined ? '' : ` where ${table.where}`})::float8 as t${i}`);
  const { rows } = await sql.raw<Record<string, number>>(`select ${parts.join(', ')}`).execute(trx);
  return tables.map((_, i) => Number(rows[0]![`t${i}`]));
}

/**
 * Writes a backup of the whole store to `out` (gzip-compressed; `out` null: reads the store as a
 * backup would and returns each table's row count and checksum, writing nothing). Every table is
 * read in one transaction (see withStoreSession). Rejects if the store or `out` fails; `out` is
 * destroyed then, so a reader of a stream sees it end before the file's end marker.
 */
export async function writeBackup(store: BackupStore, out: Writable | null, options: WriteBackupOptions = {}): Promise<BackupResult> {
  const gzip = out ? (options.uncompressed ? new PassThrough() : createGzip({ level: options.level ?? 1 })) : null;
  const delivered = gzip && out ? pipeline(gzip, out) : Promise.resolve();
  // A failure on the way out surfaces in the loop below (the next wait), or at the end.
  delivered.catch(() => undefined);
  const whole = createHash('sha256');
  const emit = async (chunk: Buffer | string, counted = true): Promise<void> => {
    if (!gzip) return;
    if (counted) whole.update(chunk);
    if (!gzip.write(chunk)) await Promise.race([new Promise((resolve) => gzip.once('drain', resolve)), delivered]);
  };

  try {
    const result = await withStoreSession(store, 'read', async (session) => {
      const tables = await readBackupTables(session.trx);
      const counts = await countRows(session.trx, tables);
      const header: BackupHeader = {
        format: BACKUP_FORMAT,
        version: BACKUP_FORMAT_VERSION,
        createdAt: new Date().toISOString(),
        store: session.kind,
        migrations: await readMigrations(session.trx),
        embedding: await readEmbeddingSettings(session.trx),
        tables: tables.map((table, i) => ({ name: table.name, columns: table.columns, rows: counts[i]! })),
      };
      await emit(`${JSON.stringify(header)}\n`);
      const total = counts.reduce((a, b) => a + b, 0);
      let done = 0;
      const summaries: TableSummary[] = [];
      for (const [i, table] of tables.entries()) {
        await emit(`${JSON.stringify({ table: table.name, columns: table.columns })}\n`);
        const digest = new TableDigest();
        const splitter = new LineSplitter(
          undefined,
          (n, max) => new Error(`Row ${n} of table ${table.name} is longer than ${max} bytes, the most one line of a backup holds: a backup could not restore it`),
        );
        let rows = 0;
        const onLine = (line: Buffer) => {
          digest.add(line);
          rows++;
        };
        for await (const chunk of session.copyOut(table)) {
          splitter.push(chunk, onLine);
          await emit(chunk);
          options.onProgress?.({ table: table.name, tableRows: rows, tableTotal: counts[i]!, rows: done + rows, total });
        }
        if (splitter.flush()?.length) throw new Error(`The rows of ${table.name} did not end with a newline`);
        done += rows;
        options.onProgress?.({ table: table.name, tableRows: rows, tableTotal: counts[i]!, rows: done, total });
        const summary = { name: table.name, rows, checksum: digest.hex() };
        summaries.push(summary);
        await emit(END_OF_ROWS_LINE);
        await emit(`${JSON.stringify({ end: table.name, rows, checksum: summary.checksum })}\n`);
      }
      return { header, tables: summaries };
    });
    await emit(`${JSON.stringify({ end: 'backup', tables: result.tables.length, sha256: whole.digest('hex') })}\n`, false);
    gzip?.end();
    await delivered;
    return result;
  } catch (error) {
    gzip?.destroy(error as Error);
    out?.destroy(error as Error);
    await delivered.catch(() => undefined);
    throw error;
  }
}
