/**
 * Idle memory of the compiled server as a new user starts it (`pnpm start`: the same node flags),
 * 8 s after /readyz answers 200: embedded mode on its first start (a new store) and on a restart
 * of the same store, and services mode (a scratch PostgreSQL database, BENCH_DATABASE_URL, and
 * Redis, BENCH_REDIS_URL, under a key prefix of its own). Prints resident memory (and the peak)
 * against the limits in docs/benchmarks.md. Needs `pnpm build` (turbo's bench task builds first).
 *
 *   tsx bench/memory.bench.ts [--settle=8] [--only=embedded|services]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';

const { values } = parseArgs({ options: { settle: { type: 'string', default: '8' }, only: { type: 'string' } } });
const settleMs = Number(values.settle) * 1000;
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const main = join(root, 'apps/server/dist/main.js');
if (!existsSync(main)) throw new Error('apps/server/dist/main.js is missing: run `pnpm build` first');
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The limits of the memory targets (MB). */
const LIMITS = { embedded: 300, services: 150 };

/** `pnpm start`'s command (package.json), without the shell's exec. */
function startArgs(): string[] {
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = script.replace(/^exec\s+/, '').split(/\s+/);
  if (words[0] !== 'node') throw new Error(`unexpected start script: ${script}`);
  return words.slice(1);
}

function memory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

async function ready(url: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms`);
}

async function measure(env: Record<string, string>): Promise<{ rssMb: number; peakMb: number; readyMs: number }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const started = Date.now();
  const child = spawn(process.execPath, startArgs(), {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await ready(`http://127.0.0.1:${port}/readyz`, child);
    const readyMs = Date.now() - started;
    await new Promise((r) => setTimeout(r, settleMs));
    return { ...memory(child.pid!), readyMs };
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${stderr.slice(-2000)}`);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

const rows: Array<{ name: string; rssMb: number; peakMb: number; readyMs: number; limit: number }> = [];

if (values.only !== 'services') {
  const dataDir = await mkdtemp(join(tmpdir(), 'kb-memory-'));
  try {
    rows.push({ name: 'embedded, first start (new store)', ...(await measure({ KB_DATA_DIR: dataDir })), limit: LIMITS.embedded });
    rows.push({ name: 'embedded, restart of that store', ...(await measure({ KB_DATA_DIR: dataDir })), limit: LIMITS.embedded });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (values.only !== 'embedded') {
  const name = `kb_bench_${randomBytes(4).toString('hex')}`;
  const prefix = `kb-bench-${randomBytes(4).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    // The first start migrates the new database; the figure is the restart's, a server's usual start.
    await measure({ DATABASE_URL: url.toString(), REDIS_URL: redisUrl, KB_QUEUE_PREFIX: prefix });
    rows.push({ name: 'services (PostgreSQL + Redis)', ...(await measure({ DATABASE_URL: url.toString(), REDIS_URL: redisUrl, KB_QUEUE_PREFIX: prefix })), limit: LIMITS.services });
  } finally {
    await admin(`drop database if exists ${name} with (force)`);
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}

console.log(`\nIdle server memory, ${settleMs / 1000} s after /readyz (node ${process.version})`);
console.log('| server | RSS MB | limit MB | ratio | peak MB | ready after |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.name} | ${r.rssMb.toFixed(0)} | ${r.limit} | ${(r.rssMb / r.limit).toFixed(2)} | ${r.peakMb.toFixed(0)} | ${(r.readyMs / 1000).toFixed(1)} s |`);
}
