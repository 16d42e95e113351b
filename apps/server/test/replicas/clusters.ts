import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * PostgreSQL clusters of the replica tests' own: a primary (initdb in a temporary directory, on a
 * free port, wal_level=replica) and streaming replicas made from it with pg_basebackup -R. They
 * use the machine's PostgreSQL binaries (KB_PG_BIN, else the newest /usr/lib/postgresql/N/bin)
 * and its extensions (pgvector); as root they run as the `postgres` user, which initdb requires.
 */

const run = promisify(execFile);

function binDir(): string {
  const configured = process.env.KB_PG_BIN;
  if (configured) return configured;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) throw new Error('No PostgreSQL binaries found: set KB_PG_BIN to the directory holding initdb and pg_ctl');
  return join(root, versions[0]!, 'bin');
}

const asRoot = process.getuid?.() === 0;
let postgresUser: { uid: number; gid: number } | undefined;

async function pgTool(tool: string, args: string[]): Promise<string> {
  const path = join(binDir(), tool);
  const { stdout } = asRoot ? await run('runuser', ['-u', 'postgres', '--', path, ...args]) : await run(path, args);
  return stdout;
}

async function ownedTempDir(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (asRoot) {
    if (!postgresUser) {
      const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
      postgresUser = { uid: await id('-u'), gid: await id('-g') };
    }
    chownSync(dir, postgresUser.uid, postgresUser.gid);
  }
  chmodSync(dir, 0o700);
  return dir;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export class Cluster {
  private running = false;

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** A new primary cluster, started. */
  static async primary(): Promise<Cluster> {
    const dir = await ownedTempDir('kb-primary-');
    const data = join(dir, 'data');
    await pgTool('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    const cluster = new Cluster(dir, await freePort());
    appendFileSync(
      join(data, 'postgresql.conf'),
      [
        `port = ${cluster.port}`,
        "listen_addresses = '127.0.0.1'",
        "unix_socket_directories = ''",
        'wal_level = replica',
        'max_wal_senders = 8',
        'shared_buffers = 32MB',
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        '',
      ].join('\n'),
    );
    await cluster.start();
    return cluster;
  }

  /** A streaming replica of this (running) cluster, started: a base backup with standby settings (-R). */
  async replica(): Promise<Cluster> {
    const dir = await ownedTempDir('kb-replica-');
    const data = join(dir, 'data');
    await pgTool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    const replica = new Cluster(dir, await freePort());
    // The backup carries the primary's settings; a later line wins.
    appendFileSync(join(data, 'postgresql.conf'), `port = ${replica.port}\nhot_standby_feedback = on\n`);
    await replica.start();
    return replica;
  }

  async start(): Promise<void> {
    await pgTool('pg_ctl', ['-D', join(this.dir, 'data'), '-l', join(this.dir, 'log'), '-w', '-t', '60', 'start']);
    this.running = true;
  }

  /** Stops the server the way an operator or a crash would: connections are cut, not drained. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    if (!this.running) return;
    await pgTool('pg_ctl', ['-D', join(this.dir, 'data'), '-m', mode, '-w', '-t', '60', 'stop']);
    this.running = false;
  }

  /** Runs one statement on this server (a connection of its own). */
  async query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Waits until `replica` has replayed everything the primary has written so far. */
export async function caughtUp(primary: Cluster, replica: Cluster, timeoutMs = 30_000): Promise<void> {
  const { lsn } = (await primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'))[0]!;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await replica.query<{ done: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [lsn]);
    if (row!.done) return;
    if (Date.now() > deadline) throw new Error(`replica on port ${replica.port} did not catch up within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
