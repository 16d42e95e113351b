import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';
import type { Config } from '@kb/config';
import { backupStoreOf, checkBackupEmbedding, createEmbedder } from '@kb/core';
import {
  BackupFileError,
  createDatabase,
  embeddingColumnDimension,
  readBackupEvents,
  restoreBackup,
  RestoreRefusedError,
  StoreLockedError,
  writeBackup,
  type BackupProgress,
  type BackupStore,
  type Database,
  type TableSummary,
} from '@kb/db';
import { CliError, openStore } from '../store.ts';

export const BACKUP_USAGE = `Usage:
  kb backup <file>                                      back up the configured store (PostgreSQL: read directly, from one snapshot)
  kb backup --from-url URL --key ADMIN_KEY <file>       back up a running server's store (the embedded store is reached this way)
  kb restore <file> [--replace]                         restore a backup into the configured store (empty unless --replace)
  kb move --to postgres://... | --to DIR [--replace]    copy the configured store into another store, and check the copy

See docs/backups.md.`;

type Out = (text: string) => void;

/** At most one progress line every two seconds, on stderr. */
function progressReporter(verb: string, err: Out): (progress: BackupProgress) => void {
  let last = Date.now();
  return (p) => {
    const now = Date.now();
    if (now - last < 2000) return;
    last = now;
    const share = p.total > 0 ? Math.floor((p.rows / p.total) * 100) : 100;
    err(`${verb}: ${p.table} ${p.tableRows.toLocaleString('en')} of ${p.tableTotal.toLocaleString('en')} rows; ${p.rows.toLocaleString('en')} of ${p.total.toLocaleString('en')} in all (${share}%)\n`);
  };
}

function tableLines(tables: TableSummary[]): string {
  const width = Math.max(...tables.map((t) => t.name.length), 5);
  return tables.map((t) => `  ${t.name.padEnd(width)}  ${String(t.rows).padStart(9)} rows  ${t.checksum.slice(0, 16)}`).join('\n');
}

/** Removes `file` if the process is stopped before `fn` ends (Ctrl-C, a process manager's SIGTERM). */
async function removedIfStopped<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const stop = (signal: NodeJS.Signals) => {
    void rm(file, { force: true }).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await fn();
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/**
 * Writes `file` through `write`, under a temporary name in the same folder that is renamed into
 * place once it is complete and on disk: an interrupted backup never leaves a partial file under
 * the final name (nor replaces an earlier backup of that name).
 */
async function writeFileAtomically<T>(file: string, write: (path: string) => Promise<T>): Promise<T> {
  const target = resolve(file);
  try {
    if ((await stat(dirname(target))).isDirectory() === false) throw new Error();
  } catch {
    throw new CliError(`Cannot write ${file}: the folder ${dirname(target)} does not exist.`);
  }
  const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}-${randomBytes(3).toString('hex')}`);
  return removedIfStopped(partial, async () => {
    try {
      const result = await write(partial);
      const handle = await open(partial, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(partial, target);
      return result;
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  });
}

/** Opens the configured store for reading or writing without migrating it (a backup is taken as the store is). */
async function openConfiguredDatabase(config: Config, whenLocked: string): Promise<Database> {
  if (config.storage.kind === 'postgres') {
    return createDatabase({ kind: 'postgres', databaseUrl: config.storage.databaseUrl, poolSize: 1 });
  }
  try {
    return await createDatabase({ kind: 'pglite', dataDir: config.storage.dataDir, cacheMb: config.storage.cacheMb });
  } catch (error) {
    if (error instanceof StoreLockedError) throw new CliError(`${error.message}\n${whenLocked}`, 2);
    throw error;
  }
}

const LOCKED_BACKUP = 'Back up the running server instead: kb backup --from-url http://HOST:PORT --key ADMIN_KEY <file>';

async function backupFromServer(url: string, key: string, file: string, out: Out, err: Out): Promise<number> {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new CliError(`--from-url must be the server's address, such as http://127.0.0.1:3000 (not "${url}")`);
  }
  const endpoint = new URL(`${base.pathname.replace(/\/+$/, '')}/api/v1/admin/backup`, base);
  let response: Response;
  try {
    response = await fetch(endpoint, { headers: { Authorization: `Bearer ${key}` } });
  } catch (error) {
    throw new CliError(`Cannot reach ${endpoint.origin}: ${(error as Error).message}`);
  }
  if (!response.ok || !response.body) {
    const body = await response.text().catch(() => '');
    let message = body.slice(0, 300);
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? message;
    } catch {
      // Not the service's JSON error: shown as it is.
    }
    throw new CliError(`The server refused the backup (${response.status}): ${message}`);
  }
  const body = response.body;
  const tables = await writeFileAtomically(file, async (partial) => {
    let bytes = 0;
    let last = Date.now();
    const counted = Readable.fromWeb(body as WebReadableStream<Uint8Array>);
    counted.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (Date.now() - last >= 2000) {
        last = Date.now();
        err(`kb backup: ${(bytes / 2 ** 20).toFixed(1)} MB received\n`);
      }
    });
    await pipeline(counted, createWriteStream(partial));
    // Checked whole before it takes the final name: a stream cut short is no backup.
    let summary: TableSummary[] = [];
    for await (const event of readBackupEvents(createReadStream(partial))) if (event.kind === 'done') summary = event.tables;
    return summary;
  });
  out(`Backed up ${tables.reduce((n, t) => n + t.rows, 0)} rows of ${tables.length} tables from ${endpoint.origin} to ${file} (${((await stat(file)).size / 2 ** 20).toFixed(1)} MB):\n${tableLines(tables)}\n`);
  return 0;
}

export async function backupCommand(args: string[], config: Config, out: Out, err: Out): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'from-url': { type: 'string' }, key: { type: 'string' } },
  });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new CliError(BACKUP_USAGE);
  if (values['from-url'] !== undefined) {
    if (!values.key) throw new CliError('--from-url needs --key with an admin API key');
    return backupFromServer(values['from-url'], values.key, file, out, err);
  }
  const database = await openConfiguredDatabase(config, LOCKED_BACKUP);
  try {
    const source = backupStoreOf(config, database);
    const result = await writeFileAtomically(file, (partial) =>
      writeBackup(source, createWriteStream(partial), { onProgress: progressReporter('kb backup', err) }),
    );
    const size = (await stat(file)).size;
    out(
      `Backed up ${result.tables.reduce((n, t) => n + t.rows, 0)} rows of ${result.tables.length} tables from ${database.description} to ${file} ` +
        `(${(size / 2 ** 20).toFixed(1)} MB):\n${tableLines(result.tables)}\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

export async function restoreCommand(args: string[], config: Config, out: Out, err: Out): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { replace: { type: 'boolean', default: false } } });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new CliError(BACKUP_USAGE);
  try {
    if (!(await stat(file)).isFile()) throw new Error();
  } catch {
    throw new CliError(`No backup file at ${file}.`);
  }
  const embedder = createEmbedder(config);
  const store = await openStore(config, { whenLocked: 'Stop the server first: a restore replaces the store it serves.' });
  try {
    const result = await restoreBackup(createReadStream(file), backupStoreOf(config, store.database), {
      replace: values.replace,
      accept: (header) => checkBackupEmbedding(header, embedder),
      onProgress: progressReporter('kb restore', err),
    });
    out(
      `Restored ${result.tables.reduce((n, t) => n + t.rows, 0)} rows of ${result.tables.length} tables into ${store.database.description} ` +
        `from ${file} (taken ${result.header.createdAt} from ${result.header.store === 'postgres' ? 'PostgreSQL' : 'an embedded store'}):\n${tableLines(result.tables)}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof BackupFileError || error instanceof RestoreRefusedError) throw new CliError(`${error.message}\nNothing was restored: the store is as it was.`);
    throw error;
  } finally {
    await store.close();
  }
}

function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** `kb move --to`: the configured store copied into another, then both read again and compared table by table. */
export async function moveCommand(args: string[], config: Config, out: Out, err: Out): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { to: { type: 'string' }, replace: { type: 'boolean', default: false } } });
  const to = values.to;
  if (!to || positionals.length > 0) throw new CliError(BACKUP_USAGE);
  const toPostgres = isPostgresUrl(to);
  if (toPostgres ? config.storage.kind === 'postgres' && config.storage.databaseUrl === to : config.storage.kind === 'pglite' && resolve(config.storage.dataDir) === resolve(to)) {
    throw new CliError('--to names the configured store itself: name another store to move to.');
  }

  const sourceDatabase = await openConfiguredDatabase(config, 'Stop the server first: a move reads the whole store at once.');
  let targetDatabase: Database | undefined;
  try {
    const source = backupStoreOf(config, sourceDatabase);
    const sourceDimension = await embeddingColumnDimension(sourceDatabase.db);
    try {
      targetDatabase = await createDatabase(
        toPostgres ? { kind: 'postgres', databaseUrl: to, poolSize: 1 } : { kind: 'pglite', dataDir: to },
        { embeddingDimension: sourceDimension },
      );
      await targetDatabase.migrate();
    } catch (error) {
      if (error instanceof StoreLockedError) throw new CliError(`${error.message}\nStop the process that holds it first.`, 2);
      throw new CliError(`Cannot open the store to move to (${toPostgres ? 'create the database first, e.g. createdb' : 'a folder for an embedded store'}): ${(error as Error).message}`);
    }
    const target: BackupStore = toPostgres ? { kind: 'postgres', databaseUrl: to } : { kind: 'embedded', database: targetDatabase };

    // The rows go from the source's snapshot straight into the target's transaction.
    const stream = new PassThrough({ highWaterMark: 4 * 2 ** 20 });
    const progress = progressReporter('kb move', err);
    const written = writeBackup(source, stream, { uncompressed: true });
    const restored = restoreBackup(stream, target, { replace: values.replace, onProgress: progress });
    written.catch((error: Error) => stream.destroy(error));
    restored.catch((error: Error) => stream.destroy(error));
    let sent;
    try {
      [sent] = await Promise.all([written, restored]);
    } catch (error) {
      if (error instanceof RestoreRefusedError || error instanceof BackupFileError) throw new CliError(`${error.message}\nNothing was moved: the target is as it was.`);
      throw error;
    }

    // The target read again on its own, compared with what was read from the source.
    err('kb move: checking the copy...\n');
    const copied = await writeBackup(target, null);
    const names = [...new Set([...sent.tables.map((t) => t.name), ...copied.tables.map((t) => t.name)])];
    const width = Math.max(...names.map((n) => n.length), 5);
    const lines = names.map((name) => {
      const a = sent.tables.find((t) => t.name === name);
      const b = copied.tables.find((t) => t.name === name);
      const same = a !== undefined && b !== undefined && a.rows === b.rows && a.checksum === b.checksum;
      return { same, text: `  ${name.padEnd(width)}  ${String(a?.rows ?? '-').padStart(9)} ${(a?.checksum ?? '-').slice(0, 16).padEnd(16)}  ->  ${String(b?.rows ?? '-').padStart(9)} ${(b?.checksum ?? '-').slice(0, 16).padEnd(16)}  ${same ? 'same' : 'DIFFERENT'}` };
    });
    out(`Moved ${sourceDatabase.description} to ${targetDatabase.description} (rows and content checksum per table, source -> target):\n${lines.map((l) => l.text).join('\n')}\n`);
    if (lines.some((l) => !l.same)) {
      err('kb move: the copy differs from the source (see DIFFERENT above).\n');
      return 1;
    }
    out(toPostgres ? `Every table matches. Run the service on it with DATABASE_URL=${redactUrl(to)}\n` : `Every table matches. Run the service on it with KB_DATA_DIR=${to} (and DATABASE_URL unset)\n`);
    return 0;
  } finally {
    await targetDatabase?.close();
    await sourceDatabase.close();
  }
}

function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
