/**
 * What the benchmarks that drive a server over HTTP share: a request read whole through a
 * keep-alive agent, percentiles, and the compiled server in a process of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { freePort, waitFor } from '../test/processes.ts';

export interface Reply {
  status: number;
  body: string;
}

/** One request through `agent`; a JSON `body` is sent with its type and length. */
export function send(agent: http.Agent, url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  const sent = body === undefined ? headers : { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: sent }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The p-th percentile (0-100) of some timings. */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface Server {
  url: string;
  process: ChildProcess;
}

/**
 * The compiled server in a process of its own, as `pnpm start` runs it (`pnpm build` first);
 * `nodeArgs` go before the others (`--cpu-prof`, ...).
 */
export async function startServer(env: Record<string, string>, readyWithinMs = 120_000, nodeArgs: readonly string[] = []): Promise<Server> {
  const main = join(import.meta.dirname, '../dist/main.js');
  if (!existsSync(main)) throw new Error('Run `pnpm build` first: the benchmark runs the compiled server.');
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, '--conditions=production', '--max-semi-space-size=32', main], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', KB_QUERY_LOG_DAYS: '0' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`, readyWithinMs);
  return { url, process: child };
}

export async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.process.once('exit', resolve));
  server.process.kill('SIGTERM');
  await exited;
}
