import { AsyncLocalStorage } from 'node:async_hooks';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/**
 * Reads through PostgreSQL streaming replicas.
 *
 * Reads that tolerate a replica's lag (searches, answers' retrieval, lists) go through a pool that
 * hands out a connection to the next replica in rotation, round robin. A statement outside a
 * transaction that fails because its server went away (refused, terminated, shut down, or
 * cancelled by a recovery conflict) runs again on the next replica, then on the primary: a
 * replica that stops answering costs its in-flight statements a retry, not a failed request.
 *
 * A replica leaves the rotation when a connection or statement finds it gone, when a health check
 * finds it gone or no longer a standby, or when it has not replayed what the primary had written
 * `maxLagMs` ago. A replica out of rotation is checked again with a backoff (retryMinMs doubling
 * up to retryMaxMs) and comes back at the first check it passes.
 */

export type ReplicaState = 'up' | 'down' | 'lagging';

export interface ReplicaStatus {
  /** host:port/database, never credentials. */
  name: string;
  state: ReplicaState;
  /** Why it is out of rotation. */
  reason?: string;
  /** When it entered this state. */
  since: Date;
}

export interface ReplicaOptions {
  /** A replica that has not replayed what the primary had written this long ago leaves the rotation (default 10 s). */
  maxLagMs?: number;
  /** How often replicas in rotation are checked, and the primary's write position sampled (default 1 s). */
  checkIntervalMs?: number;
  /** First re-check of a replica out of rotation (default 1 s), doubling up to retryMaxMs (default 30 s). */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** Hears each change of a replica's state (logged by the service). */
  onChange?(status: ReplicaStatus, error?: unknown): void;
}

/** A pool of one server: its plain connections and its vector search connections (see Database.withVectorSearch). */
export interface ServerPools {
  name: string;
  general: pg.Pool;
  vector: pg.Pool;
}

const primaryOnly = new AsyncLocalStorage<true>();

/**
 * Runs `fn` with every read it makes served by the primary, replicas or not: for a client that must
 * read what it has just written (the `KB-Read-From: primary` request header).
 */
export function readFromPrimary<T>(fn: () => T): T {
  return primaryOnly.run(true, fn);
}

/** Whether the reads of the current call are pinned to the primary. */
export function readsPinnedToPrimary(): boolean {
  return primaryOnly.getStore() === true;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

/**
 * Whether a failed statement or connection says its server is gone (as opposed to a fault of the
 * statement, which would fail anywhere): SQLSTATE class 08 (connection exception), 57P (shutdown,
 * crash, not accepting connections), a socket error, or pg's own "connection terminated" and
 * connection timeout errors, which carry no code.
 */
export function serverUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return /^(08|57P)/.test(code) || NETWORK_CODES.has(code);
  return /connection terminated|connection error|not queryable|timeout exceeded when trying to connect|connection timeout/i.test(error.message);
}

/** A standby cancelled the statement to replay the primary's changes (SQLSTATE 40001 on a hot standby): worth running elsewhere. */
function recoveryConflict(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === '40001' && /conflict with recovery/i.test(error.message);
}

/** A WAL position ("16/B374D848") as a number of bytes. */
function lsnBytes(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

interface Replica extends ServerPools {
  state: ReplicaState;
  reason?: string;
  since: Date;
  failures: number;
  nextCheckAt: number;
}

const CHECK_TIMEOUT_MS = 2_000;
const ignore = () => undefined;

export class ReplicaSet {
  private readonly replicas: Replica[];
  private readonly maxLagMs: number;
  private readonly checkIntervalMs: number;
  private readonly retryMinMs: number;
  private readonly retryMaxMs: number;
  /** The next replica in turn, for each kind of connection (a search's vector statements alternate on their own). */
  private readonly next = { general: 0, vector: 0 };
  /** The primary's write position, sampled at each check round (newest last). */
  private samples: Array<{ at: number; lsn: bigint }> = [];
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly primary: ServerPools,
    replicas: ServerPools[],
    private readonly options: ReplicaOptions = {},
  ) {
    this.replicas = replicas.map((pools) => ({ ...pools, state: 'up', since: new Date(), failures: 0, nextCheckAt: 0 }));
    this.maxLagMs = options.maxLagMs ?? 10_000;
    this.checkIntervalMs = options.checkIntervalMs ?? 1_000;
    this.retryMinMs = options.retryMinMs ?? 1_000;
    this.retryMaxMs = options.retryMaxMs ?? 30_000;
  }

  get size(): number {
    return this.replicas.length;
  }

  /** Starts the periodic checks (a first round right away). */
  start(): void {
    if (this.timer || this.replicas.length === 0) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), this.checkIntervalMs);
    this.timer.unref();
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({ name: r.name, state: r.state, ...(r.reason ? { reason: r.reason } : {}), since: r.since }));
  }

  /** A pool for Kysely reading through the rotation: `kind` picks each server's plain or vector search pool. */
  pool(kind: 'general' | 'vector'): PostgresPool {
    return {
      connect: async () => {
        const client = new RoutedClient(this, kind);
        await client.open();
        return client;
      },
      // The servers' pools are ended by their owner (the Database).
      end: async () => undefined,
    };
  }

  /** The servers to try for a read, in order: replicas in rotation from the next in turn, then the primary. */
  route(kind: 'general' | 'vector'): Array<{ pools: ServerPools; replica?: Replica }> {
    const order: Array<{ pools: ServerPools; replica?: Replica }> = [];
    if (!readsPinnedToPrimary() && this.replicas.length > 0) {
      const start = this.next[kind];
      this.next[kind] = (start + 1) % this.replicas.length;
      for (let i = 0; i < this.replicas.length; i++) {
        const replica = this.replicas[(start + i) % this.replicas.length]!;
        if (replica.state === 'up') order.push({ pools: replica, replica });
      }
    }
    order.push({ pools: this.primary });
    return order;
  }

  /** Takes a replica out of rotation: a connection or statement found it gone. */
  markDown(replica: Replica, error: unknown): void {
    if (replica.state === 'down') return;
    replica.failures = 1;
    replica.nextCheckAt = Date.now() + this.retryMinMs;
    this.setState(replica, 'down', error instanceof Error ? error.message : String(error), error);
  }

  private setState(replica: Replica, state: ReplicaState, reason: string | undefined, error?: unknown): void {
    const changed = replica.state !== state;
    replica.state = state;
    replica.reason = reason;
    if (!changed) return;
    replica.since = new Date();
    this.options.onChange?.(this.status().find((s) => s.name === replica.name)!, error);
  }

  /** One round of checks (the timer's; tests call it to hurry). */
  check(): Promise<void> {
    this.checking ??= this.checkRound().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async checkRound(): Promise<void> {
    const now = Date.now();
    try {
      const { rows } = await withTimeout(this.primary.general.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'));
      this.samples.push({ at: now, lsn: lsnBytes(rows[0]!.lsn) });
    } catch {
      // The primary's own trouble is for its callers to see; lag is judged on the samples there are.
    }
    // The newest sample at least maxLagMs old: a replica must have replayed at least that far.
    const old = this.samples.filter((s) => s.at <= now - this.maxLagMs);
    const bound = old.at(-1);
    if (old.length > 1) this.samples = this.samples.slice(old.length - 1);
    await Promise.all(
      this.replicas.map(async (replica) => {
        if (replica.state === 'down' && now < replica.nextCheckAt) return;
        try {
          const { rows } = await withTimeout(
            replica.general.query<{ standby: boolean; replayed: string | null }>(
              'select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replayed',
            ),
          );
          const row = rows[0]!;
          if (!row.standby || row.replayed === null) {
            // Promoted (or never a standby): it no longer follows this primary.
            this.failed(replica, new Error('not a standby of the primary (promoted?)'));
            return;
          }
          replica.failures = 0;
          if (bound && lsnBytes(row.replayed) < bound.lsn) {
            this.setState(replica, 'lagging', `more than ${this.maxLagMs} ms behind the primary`);
          } else {
            this.setState(replica, 'up', undefined);
          }
        } catch (error) {
          this.failed(replica, error);
        }
      }),
    );
  }

  private failed(replica: Replica, error: unknown): void {
    replica.failures += 1;
    replica.nextCheckAt = Date.now() + Math.min(this.retryMaxMs, this.retryMinMs * 2 ** (replica.failures - 1));
    this.setState(replica, 'down', error instanceof Error ? error.message : String(error), error);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  async end(): Promise<void> {
    this.stop();
    await this.checking;
    await Promise.all(this.replicas.flatMap((r) => [r.general.end(), r.vector.end()]));
  }
}

async function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A connection of the read pool: a connection to one server at a time, moved to the next server
 * in the route when the current one is found gone, while no transaction is open on it.
 */
class RoutedClient implements PostgresPoolClient {
  private route: Array<{ pools: ServerPools; replica?: Replica }> = [];
  private client: pg.PoolClient | undefined;
  private replica: Replica | undefined;
  private inTransaction = false;

  constructor(
    private readonly set: ReplicaSet,
    private readonly kind: 'general' | 'vector',
  ) {}

  /** Connects to the first server of the route that answers (the primary's failure is the caller's). */
  async open(): Promise<void> {
    this.route = this.set.route(this.kind);
    await this.connectNext();
  }

  private async connectNext(): Promise<void> {
    for (;;) {
      const target = this.route.shift()!;
      try {
        this.client = await target.pools[this.kind].connect();
        // pg's pool listens for a client's errors only while it is idle: a held client whose server
        // goes away between statements would throw them at the process. The next statement fails instead.
        this.client.on('error', ignore);
        this.replica = target.replica;
        return;
      } catch (error) {
        if (!target.replica) throw error;
        this.set.markDown(target.replica, error);
      }
    }
  }

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sqlOrCursor: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // A cursor (a streamed query) stays on its server.
    if (typeof sqlOrCursor !== 'string') return this.client!.query(sqlOrCursor as never) as unknown as PostgresCursor<R>;
    return this.statement<R>(sqlOrCursor, parameters ?? []);
  }

  private async statement<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    // Kysely opens and closes transactions with these statements (PostgresDriver).
    const opens = /^\s*(begin|start transaction)\b/i.test(sql);
    const closes = /^\s*(commit|rollback)\b(?!\s+to)/i.test(sql);
    for (;;) {
      const retryable = !this.inTransaction && this.replica !== undefined;
      try {
        const result = (await this.client!.query(sql, [...parameters])) as unknown as PostgresQueryResult<R>;
        if (opens) this.inTransaction = true;
        if (closes) this.inTransaction = false;
        return result;
      } catch (error) {
        if (closes) this.inTransaction = false;
        const gone = serverUnavailable(error);
        if (!retryable || !(gone || recoveryConflict(error))) throw error;
        if (gone) this.set.markDown(this.replica!, error);
        // A broken connection is dropped from its pool rather than handed out again.
        this.client!.off('error', ignore);
        this.client!.release(gone ? (error as Error) : undefined);
        this.client = undefined;
        await this.connectNext();
      }
    }
  }

  release(): void {
    this.client?.off('error', ignore);
    this.client?.release();
    this.client = undefined;
  }
}
