import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { entryArgs } from '@kb/vitest-config/entry';

/** The repository root: scripts run from there, as `pnpm kb` and `pnpm start` do. */
export const ROOT = join(import.meta.dirname, '../../..');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts a TypeScript entry point of the repository (compiled when the build is current) with only
 * PATH and the given environment. Its output is always drained: a child whose pipe fills up blocks on its next log line.
 */
export function start(script: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [...entryArgs(ROOT, script), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', () => undefined);
  child.stderr!.on('data', () => undefined);
  return child;
}

/**
 * Runs a script to its end and collects its output; or SIGTERMs it after stopAfterMs, or as soon
 * as its output holds `stopOnOutput`.
 */
export function run(script: string, args: string[], env: Record<string, string>, stopAfterMs?: number, stopOnOutput?: string): Promise<Finished> {
  return new Promise((resolve) => {
    const child = start(script, args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => {
      stdout += c;
      if (stopOnOutput !== undefined && stdout.includes(stopOnOutput)) child.kill('SIGTERM');
    });
    child.stderr!.on('data', (c) => (stderr += c));
    const timer = stopAfterMs ? setTimeout(() => child.kill('SIGTERM'), stopAfterMs) : undefined;
    child.on('exit', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

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
