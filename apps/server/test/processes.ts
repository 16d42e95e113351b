import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { TEST_REDIS_URL } from '@kb/db/testing';

// For suites of packages that start the server but do not depend on the store package.
export { seedEmbeddedStore } from '@kb/db/testing';
import { entryArgs } from '@kb/vitest-config/entry';
import { Redis } from 'ioredis';

export const repoRoot = join(import.meta.dirname, '../../..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * Waits until `url` answers 2xx. The default bound fits a server starting through tsx on a busy
 * 2-core machine (several times its idle start-up); a process that is given and exits first fails
 * the wait at once instead of running out the clock.
 */
export async function waitFor(url: string, ms = 120_000, process?: ChildProcess): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (process && (process.exitCode !== null || process.signalCode !== null)) {
      throw new Error(`${url} did not come up: its process exited (${process.exitCode ?? process.signalCode})`);
    }
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not come up`);
}

/**
 * A TypeScript entry point of the repository in a child process (compiled when the build is
 * current), with only `env` (and PATH). Its
 * output is always drained: a child whose pipe fills up blocks on its next log line.
 */
export function run(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [...entryArgs(repoRoot, args[0]!), ...args.slice(1)], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', () => undefined);
  child.stderr!.on('data', () => undefined);
  return child;
}

export function runToEnd(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = run(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Resolves with the exit code once the process has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

export async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map((child) => {
      const done = exited(child);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const started = Date.now();
      const timer = setInterval(() => console.error(`pid ${child.pid} still running ${Math.round((Date.now() - started) / 1000)} s after SIGTERM: ${child.spawnargs.slice(-1)[0]}`), 5_000);
      return done.finally(() => clearInterval(timer));
    }),
  );
}

/** A job-queue prefix of the test's own, whose Redis keys dropRedisKeys removes afterwards. */
export function testQueuePrefix(): string {
  return `kbtest-${randomBytes(6).toString('hex')}`;
}

/** Deletes every Redis key under `prefix` (a test's queue), so test runs leave nothing behind. */
export async function dropRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
