import type { Readable } from 'node:stream';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.ts';
import { buildMemoryMb, VECTOR_INDEX } from '../vector-index.ts';
import { readBackupTables, readEmbeddingSettings, readMigrations, readSecondaryIndexes, type BackupTable } from './catalog.ts';
import type { BackupProgress } from './dump.ts';
import { BackupFileError, readBackupEvents, type BackupHeader, type TableSummary } from './format.ts';
import { withStoreSession, type AnyKysely, type BackupStore } from './session.ts';

/** A backup that is sound but does not fit the store it would be restored into: the message says why. */
export class RestoreRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefusedError';
  }
}

export interface RestoreOptions {
  /** Replace whatever the store holds (otherwise only an empty store is restored into). */
  replace?: boolean;
  /** Looks at the header before anything is written (the configured embedder); throws to refuse. */
  accept?(header: BackupHeader): void | Promise<void>;
  onProgress?(progress: BackupProgress): void;
}

export interface RestoreResult {
  header: BackupHeader;
  tables: TableSummary[];
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function checkHeader(header: BackupHeader): void {
  const sound =
    typeof header.createdAt === 'string' &&
    Array.isArray(header.migrations) &&
    Array.isArray(header.tables) &&
    header.tables.every((t) => typeof t?.name === 'string' && Array.isArray(t.columns) && typeof t.rows === 'number') &&
    typeof header.embedding?.dimension === 'number';
  if (!sound) throw new BackupFileError('The backup file is damaged: its header lacks what a kb backup header holds.');
}

/** Tables that hold rows, of those an empty store may hold nothing in (store_meta is filled by the migrations). */
async function nonEmptyTables(trx: AnyKysely, tables: BackupTable[]): Promise<string[]> {
  const candidates = tables.filter((table) => table.name !== 'store_meta');
  if (candidates.length === 0) return [];
  const parts = candidates.map((table, i) => `exists (select 1 from ${quote(table.name)}) as t${i}`);
  const { rows } = await sql.raw<Record<string, boolean>>(`select ${parts.join(', ')}`).execute(trx);
  return candidates.filter((_, i) => rows[0]![`t${i}`]).map((table) => table.name);
}

function describeMigrations(file: string[], store: string[]): string | undefined {
  const unknown = file.filter((name) => !store.includes(name));
  if (unknown.length > 0) {
    return `The backup was made by a newer version of kb: its schema includes migration ${unknown[0]}, which this version does not have. Upgrade kb, then restore it.`;
  }
  const missing = store.filter((name) => !file.includes(name));
  if (missing.length > 0) {
    return `The backup was made by an older version of kb (its schema ends at migration ${file.at(-1) ?? 'none'}; this version's at ${store.at(-1)}). Restore it with that version, then start this one to upgrade the store.`;
  }
  return undefined;
}

/**
 * Restores a backup into the store in one transaction: the file is checked as it is read (its
 * format version and header before anything is written, each table's checksum, the whole file's
 * at its end), and any failure, a damaged file, a file that does not fit, an interrupted read,
 * rolls everything back: the store is as it was. Restores into an empty store unless `replace`.
 * Indexes that no constraint needs are built again once the rows are in.
 */
export async function restoreBackup(input: Readable | AsyncIterable<Buffer>, store: BackupStore, options: RestoreOptions = {}): Promise<RestoreResult> {
  const events = readBackupEvents(input);
  try {
    const first = await events.next();
    if (first.done || first.value.kind !== 'header') throw new BackupFileError('The backup file is empty.');
    const header = first.value.header;
    checkHeader(header);
    await options.accept?.(header);

    return await withStoreSession(store, 'write', async (session) => {
      const { trx } = session;
      const fail = describeMigrations(header.migrations, await readMigrations(trx));
      if (fail) throw new RestoreRefusedError(fail);
      const embedding = await readEmbeddingSettings(trx);
      if (embedding.dimension !== header.embedding.dimension) {
        throw new RestoreRefusedError(
          `The backup's vectors have ${header.embedding.dimension} dimensions, but this store's embedding column has ${embedding.dimension}: restore it into a store created for ${header.embedding.dimension} dimensions (KB_EMBEDDING_DIM).`,
        );
      }
      const targets = new Map((await readBackupTables(trx)).map((table) => [table.name, table]));
      const missing = header.tables.filter((table) => !targets.has(table.name));
      if (missing.length > 0) throw new RestoreRefusedError(`The backup holds table ${missing[0]!.name}, which this store does not have.`);

      const occupied = await nonEmptyTables(trx, [...targets.values()]);
      if (occupied.length > 0 && !options.replace) {
        throw new RestoreRefusedError(
          `The store is not empty (${occupied.join(', ')} hold rows): restore into an empty store, or replace everything in this one (kb restore --replace).`,
        );
      }
      await sql.raw(`truncate ${[...targets.keys()].map(quote).join(', ')}`).execute(trx);

      const indexes = await readSecondaryIndexes(trx);
      for (const index of indexes) await sql.raw(`drop index ${quote(index.name)}`).execute(trx);

      const total = header.tables.reduce((sum, table) => sum + table.rows, 0);
      let done = 0;
      let table: { name: string; total: number; rows: number; sink: ReturnType<typeof session.copyIn> } | undefined;
      let tables: TableSummary[] = [];
      for (;;) {
        const next = await events.next();
        if (next.done) break;
        const event = next.value;
        if (event.kind === 'table') {
          const target = targets.get(event.name);
          if (!target) throw new RestoreRefusedError(`The backup holds table ${event.name}, which this store does not have.`);
          const unknown = event.columns.find((column) => !target.columns.includes(column));
          if (unknown) throw new RestoreRefusedError(`The backup's table ${event.name} has a column ${unknown}, which this store's does not.`);
          const types = event.columns.map((column) => target.types[target.columns.indexOf(column)]!);
          const planned = header.tables.find((t) => t.name === event.name)?.rows ?? 0;
          table = { name: event.name, total: planned, rows: 0, sink: session.copyIn({ name: event.name, columns: event.columns, types }) };
        } else if (event.kind === 'rows' && table) {
          await table.sink.write(event.lines);
          table.rows += event.lines.length;
          options.onProgress?.({ table: table.name, tableRows: table.rows, tableTotal: table.total, rows: done + table.rows, total });
        } else if (event.kind === 'end' && table) {
          await table.sink.end();
          done += table.rows;
          options.onProgress?.({ table: table.name, tableRows: table.rows, tableTotal: table.total, rows: done, total });
          table = undefined;
        } else if (event.kind === 'done') {
          tables = event.tables;
        }
      }

      const kind = session.kind === 'postgres' ? 'postgres' : 'pglite';
      for (const index of indexes) {
        if (index.name === VECTOR_INDEX) {
          // The graph is built in memory while it fits (see vector-index.ts).
          const memory = await buildMemoryMb(trx as Kysely<DB>, kind, embedding.dimension);
          if (memory !== undefined) await sql`select set_config('maintenance_work_mem', ${`${memory}MB`}, true)`.execute(trx);
        }
        await sql.raw(index.definition).execute(trx);
        if (index.comment !== null) await sql.raw(`comment on index ${quote(index.name)} is '${index.comment.replaceAll("'", "''")}'`).execute(trx);
      }
      await sql`analyze`.execute(trx);
      return { header, tables };
    });
  } finally {
    await events.return(undefined);
  }
}
