/**
 * The fault test's own PostgreSQL cluster and Redis server, so it can stop and start them while the
 * service runs. PostgreSQL comes from the system's binaries (PG_BIN, default
 * /usr/lib/postgresql/15/bin), with pgvector from the system's share directory; as root it runs as
 * the `postgres` user (initdb refuses root). Redis keeps nothing on disk (--save ""), so a restart
 * loses every key, the harshest case for the job queue.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';

const exec = promisify(execFile);

export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

function asRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** A PostgreSQL binary, run as `postgres` when this process is root. */
async function pgCommand(binary: string, args: string[]): Promise<string> {
  const file = join(PG_BIN, binary);
  const { stdout } = asRoot() ? await exec('runuser', ['-u', 'postgres', '--', file, ...args]) : await exec(file, args);
  return stdout;
}

export class PostgresCluster {
  private constructor(
    readonly dataDir: string,
    readonly port: number,
    private readonly logFile: string,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(root: string, port: number): Promise<PostgresCluster> {
    const dataDir = join(root, 'pg');
    await mkdir(dataDir, { mode: 0o700 });
    if (asRoot()) {
      const { stdout } = await exec('id', ['-u', 'postgres']);
      const { stdout: gid } = await exec('id', ['-g', 'postgres']);
      await chmod(root, 0o755);
      await chown(dataDir, Number(stdout.trim()), Number(gid.trim()));
    }
    await pgCommand('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const cluster = new PostgresCluster(dataDir, port, join(dataDir, 'server.log'));
    await cluster.start();
    return cluster;
  }

  async start(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${this.dataDir}`,
      '-c fsync=off',
      '-c max_connections=200',
      '-c shared_buffers=32MB',
    ].join(' ');
    await pgCommand('pg_ctl', ['-D', this.dataDir, '-l', this.logFile, '-o', options, '-w', '-t', '60', 'start']);
  }

  /** A fast shutdown: open sessions are ended (57P01) and the server stops. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await pgCommand('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  async stopQuietly(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
  }

  async query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  }
}

export class RedisServer {
  private child: ChildProcess | undefined;

  constructor(
    private readonly root: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const log = await open(join(this.root, 'redis.log'), 'a');
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.root],
      { stdio: ['ignore', log.fd, log.fd] },
    );
    this.child.once('exit', () => void log.close().catch(() => undefined));
    const deadline = Date.now() + 15_000;
    for (;;) {
      const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined); // not up yet: connect() rejects
      try {
        await client.connect();
        await client.ping();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      } finally {
        client.disconnect();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}
