import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { Database } from '../database.ts';
import { encodeCopyRow, decodeCopyRow } from './copy-text.ts';
import type { BackupTable } from './catalog.ts';

/**
 * Where a backup is read from or a restore written to: a PostgreSQL database by its URL (read and
 * written on a connection of its own, through COPY), or an open store (the embedded store, through
 * its one connection; any open Database works this way, by statements instead of COPY).
 */
export type BackupStore = { kind: 'postgres'; databaseUrl: string } | { kind: 'embedded'; database: Database };

// The catalog and the rows are read whatever the schema's types say.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKysely = Kysely<any>;

/** Receives a table's rows, COPY text lines ending in a newline. */
export interface RowSink {
  write(lines: Buffer[]): Promise<void>;
  end(): Promise<void>;
}

/** One transaction on a store, with the ways in and out of its tables that its engine does best. */
export interface StoreSession {
  kind: 'postgres' | 'embedded';
  trx: AnyKysely;
  /** A table's rows as COPY text, in chunks that may split lines anywhere. */
  copyOut(table: BackupTable): AsyncIterable<Buffer>;
  /** Loads rows into a table's columns (`types` as the target declares them). */
  copyIn(table: BackupTable): RowSink;
}

/**
 * How values print: the same on both engines (timestamps in UTC, ISO dates, the shortest exact
 * floats), so a row's text and checksum do not depend on the store or its server's settings.
 */
async function fixOutputSettings(trx: AnyKysely): Promise<void> {
  await sql`select set_config('timezone', 'UTC', true), set_config('datestyle', 'ISO, YMD', true),
    set_config('intervalstyle', 'postgres', true), set_config('extra_float_digits', '1', true),
    set_config('bytea_output', 'hex', true)`.execute(trx);
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const columnList = (table: BackupTable) => table.columns.map(quote).join(', ');

/**
 * Runs `fn` in one transaction on the store. `read`: REPEATABLE READ and read-only on PostgreSQL,
 * so every table is read from one snapshot while the store goes on being written; the embedded
 * store has one connection, and the transaction holds it (its other users wait). `write`: the
 * whole restore commits at once or not at all.
 */
export async function withStoreSession<T>(store: BackupStore, mode: 'read' | 'write', fn: (session: StoreSession) => Promise<T>): Promise<T> {
  if (store.kind === 'embedded') {
    const { database } = store;
    // An open PostgreSQL store reached this way (tests) reads from one snapshot too.
    let begin = database.db.transaction();
    if (mode === 'read' && database.shared) begin = begin.setIsolationLevel('repeatable read');
    return begin.execute(async (trx) => {
      await fixOutputSettings(trx);
      return fn(embeddedSession(trx, database.shared ? 'postgres' : 'embedded'));
    });
  }
  const client = new pg.Client({ connectionString: store.databaseUrl });
  // A dropped connection must fail the backup, not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  const pool = {
    connect: async () => Object.assign(client, { release: () => undefined }),
    end: async () => undefined,
  };
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  let broken = false;
  try {
    await client.query(mode === 'read' ? 'begin isolation level repeatable read read only' : 'begin');
    await fixOutputSettings(db);
    const result = await fn(postgresSession(db, client));
    await client.query('commit');
    return result;
  } catch (error) {
    // A failure in the middle of a COPY leaves the connection where a ROLLBACK would wait behind
    // it: the connection is closed instead, which rolls the transaction back.
    broken = true;
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    throw error;
  } finally {
    if (!broken) await client.end().catch(() => undefined);
  }
}

function postgresSession(trx: AnyKysely, client: pg.Client): StoreSession {
  return {
    kind: 'postgres',
    trx,
    copyOut(table) {
      const source = table.where === undefined ? `${quote(table.name)} (${columnList(table)})` : `(select ${columnList(table)} from ${quote(table.name)} where ${table.where})`;
      return client.query(copyTo(`copy ${source} to stdout`)) as AsyncIterable<Buffer>;
    },
    copyIn(table) {
      const stream = client.query(copyFrom(`copy ${quote(table.name)} (${columnList(table)}) from stdin`));
      const finished = new Promise<void>((resolve, reject) => {
        stream.on('finish', resolve);
        stream.on('error', reject);
      });
      // Reported by end(), or by the next write.
      finished.catch(() => undefined);
      return {
        async write(lines) {
          let ok = true;
          for (const line of lines) ok = stream.write(line);
          if (!ok) await Promise.race([new Promise((resolve) => stream.once('drain', resolve)), finished]);
        },
        async end() {
          stream.end();
          await finished;
        },
      };
    },
  };
}

/** Rows a cursor fetch or an insert statement carries on the embedded store (about 1-2 MB with vectors). */
const EMBEDDED_ROWS_PER_STATEMENT = 200;
const EMBEDDED_BYTES_PER_STATEMENT = 2 * 2 ** 20;

function embeddedSession(trx: AnyKysely, kind: StoreSession['kind']): StoreSession {
  let cursors = 0;
  return {
    kind,
    trx,
    async *copyOut(table) {
      // A cursor reads the table in pieces, in the transaction's snapshot; each value as its type prints it.
      const cursor = `kb_backup_${cursors++}`;
      // A cast to text prints as the type's output function does, as COPY does, except for booleans.
      const select = table.columns
        .map((column, i) => (table.types[i] === 'boolean' ? `case when ${quote(column)} then 't' when not ${quote(column)} then 'f' end` : `${quote(column)}::text`) + ` as c${i}`)
        .join(', ');
      const where = table.where === undefined ? '' : ` where ${table.where}`;
      await sql.raw(`declare ${cursor} no scroll cursor for select ${select} from ${quote(table.name)}${where}`).execute(trx);
      try {
        for (;;) {
          const { rows } = await sql.raw<Record<string, string | null>>(`fetch ${EMBEDDED_ROWS_PER_STATEMENT} from ${cursor}`).execute(trx);
          if (rows.length === 0) break;
          let text = '';
          for (const row of rows) text += `${encodeCopyRow(table.columns.map((_, i) => row[`c${i}`] ?? null))}\n`;
          yield Buffer.from(text, 'utf8');
        }
      } finally {
        await sql.raw(`close ${cursor}`).execute(trx);
      }
    },
    copyIn(table) {
      const values = table.types.map((type, i) => `(r->>${i})::${type}`).join(', ');
      const statement = `insert into ${quote(table.name)} (${columnList(table)}) select ${values} from json_array_elements($1::json) as r`;
      let batch: Array<Array<string | null>> = [];
      let bytes = 0;
      const insert = async (rows: Array<Array<string | null>>) => {
        await trx.executeQuery(CompiledQuery.raw(statement, [JSON.stringify(rows)]));
      };
      return {
        async write(lines) {
          for (const line of lines) {
            batch.push(decodeCopyRow(line.toString('utf8', 0, line.length - 1)));
            bytes += line.length;
            if (batch.length >= EMBEDDED_ROWS_PER_STATEMENT || bytes >= EMBEDDED_BYTES_PER_STATEMENT) {
              const rows = batch;
              batch = [];
              bytes = 0;
              await insert(rows);
            }
          }
        },
        async end() {
          if (batch.length) await insert(batch);
          batch = [];
        },
      };
    },
  };
}
