import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/** What the embedded store needs of a PGlite database, in this thread or on its own. */
export interface EmbeddedQueryable {
  query<R>(sql: string, params: unknown[], options?: { rowMode: 'object' }): Promise<{ rows: R[]; affectedRows?: number }>;
  close(): Promise<void>;
}

/** An error the embedded database reported, with PostgreSQL's fields (code: the SQLSTATE). */
export class EmbeddedDatabaseError extends Error {
  code?: string;
  severity?: string;
  detail?: string;
  hint?: string;
  constraint?: string;
  table?: string;
  column?: string;
}

interface ErrorReply {
  name: string;
  message: string;
  [field: string]: unknown;
}

type Reply = { id: number; rows: unknown[]; affectedRows?: number } | { id: number; error: ErrorReply };

interface Pending {
  resolve(result: { rows: unknown[]; affectedRows?: number }): void;
  reject(error: Error): void;
}

function toError(reply: ErrorReply): EmbeddedDatabaseError {
  const { name: _name, message, ...fields } = reply;
  return Object.assign(new EmbeddedDatabaseError(message), fields);
}

/**
 * Creates a new store in a short-lived process of its own. PGlite's initdb grows the WebAssembly
 * memory of the instance that runs it to about 650 MB, and WebAssembly memory is never given
 * back: created on the server's database thread, a new store left the server holding about
 * 200 MB more for as long as it ran than the same store opened again. A process returns all of
 * it when it exits; the database thread then opens the new store as it opens any other.
 */
async function createStore(dataDir: string, startParams: string[] | undefined): Promise<void> {
  const script = fileURLToPath(new URL('./pglite-create.mjs', import.meta.url));
  try {
    await promisify(execFile)(process.execPath, [script, dataDir, ...(startParams ? [JSON.stringify(startParams)] : [])], { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`Could not create the embedded store in ${dataDir}${stderr ? `: ${stderr.split('\n').slice(-3).join(' ')}` : ''}`, { cause: error });
  }
}

/**
 * A PGlite database on a thread of its own. PGlite executes every statement synchronously in
 * WebAssembly on the thread that owns it: on the server's thread, inserting a chunk into the
 * vector index (milliseconds) or building the index (seconds for a large load) would stall every
 * other request. Here the server's thread only passes statements and rows, and splits and embeds
 * the next documents while the database writes the last ones.
 *
 * Statements run one at a time, in the order they are sent (the driver already hands the single
 * connection to one caller at a time). If the thread dies, pending and later statements fail.
 */
export class PGliteThread implements EmbeddedQueryable {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: Reply) => {
      const request = this.pending.get(reply.id);
      if (!request) return;
      this.pending.delete(reply.id);
      // An idle database thread must not keep the process alive; its owner closes it.
      if (this.pending.size === 0) worker.unref();
      if ('error' in reply) request.reject(toError(reply.error));
      else request.resolve(reply);
    });
    const fail = (reason: string) => {
      this.failure ??= new Error(`The embedded database stopped: ${reason}`);
      for (const request of this.pending.values()) request.reject(this.failure);
      this.pending.clear();
    };
    worker.on('error', (error) => fail(error.message));
    worker.on('exit', (code) => fail(`its thread exited (code ${code})`));
  }

  /**
   * Opens (or creates) the database in `dataDir`, with `cacheMb` of shared buffers (PGlite's
   * default, 128 MB, otherwise); fails as PGlite's own start would.
   */
  static async open(dataDir: string, cacheMb?: number): Promise<PGliteThread> {
    const startParams = cacheMb === undefined ? undefined : [...PGlite.defaultStartParams, '-c', `shared_buffers=${cacheMb}MB`];
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await createStore(dataDir, startParams);
    const worker = new Worker(new URL('./pglite-thread-worker.mjs', import.meta.url), { workerData: { dataDir, startParams } });
    const started = await new Promise<{ started: true } | { started: false; error: ErrorReply }>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`The embedded database's thread exited while starting (code ${code})`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (message) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        resolve(message);
      });
    });
    if (!started.started) {
      await worker.terminate();
      throw toError(started.error);
    }
    worker.unref();
    return new PGliteThread(worker);
  }

  query<R>(sql: string, params: unknown[], _options?: { rowMode: 'object' }): Promise<{ rows: R[]; affectedRows?: number }> {
    return this.send({ sql, params }) as Promise<{ rows: R[]; affectedRows?: number }>;
  }

  /** Closes the database (flushing it to disk) and ends its thread. */
  async close(): Promise<void> {
    if (this.failure) return;
    try {
      await this.send({ close: true });
    } finally {
      this.failure = new Error('The embedded database is closed');
      await this.worker.terminate();
    }
  }

  private send(message: { sql: string; params: unknown[] } | { close: true }): Promise<{ rows: unknown[]; affectedRows?: number }> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, ...message });
    });
  }
}
