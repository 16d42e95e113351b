import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmptyPostgresDatabase, isPostgresAvailable, TEST_REDIS_URL } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropRedisKeys, exited, freePort, repoRoot, testQueuePrefix, waitFor } from './processes.ts';

// `pnpm start` and `pnpm worker` as an operator runs them: compiled output (`pnpm build`), and a
// SIGTERM sent to pnpm (what a process manager sends) stopping Node gracefully.

const built = existsSync(join(repoRoot, 'apps/server/dist/main.js')) && existsSync(join(repoRoot, 'packages/content/dist/worker/thread.js'));
if (!built) throw new Error('These tests run the compiled server: run `pnpm build` first (`pnpm test` does)');

interface Started {
  pnpm: ChildProcess;
  output(): string;
  /** The Node process pnpm started, from its first log line. */
  nodePid(): number;
}

function pnpm(script: 'start' | 'worker', env: Record<string, string>): Started {
  const child = spawn('pnpm', ['--silent', script], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return {
    pnpm: child,
    output: () => output,
    nodePid() {
      const match = /"pid":(\d+)/.exec(output);
      if (!match) throw new Error(`no log line with a pid yet:\n${output}`);
      return Number(match[1]);
    },
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('pnpm start: the compiled server on the embedded store', () => {
  let dataDir: string;
  let server: Started;
  let url: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kb-production-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = pnpm('start', { PORT: String(port), KB_DATA_DIR: dataDir, KB_ADMIN_PASSWORD: 'a-long-admin-password', NODE_ENV: 'production' });
    await waitFor(`${url}/readyz`, 90_000);
  }, 120_000);

  afterAll(async () => {
    if (server.pnpm.exitCode === null) server.pnpm.kill('SIGKILL');
    const pid = /"pid":(\d+)/.exec(server.output())?.[1];
    if (pid !== undefined && alive(Number(pid))) process.kill(Number(pid), 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs JavaScript from dist without a TypeScript loader, ingests, searches and answers', async () => {
    const commandLine = readFileSync(`/proc/${server.nodePid()}/cmdline`, 'utf8').split('\0');
    expect(commandLine).toContain('--conditions=production');
    expect(commandLine.some((arg) => arg.endsWith('apps/server/dist/main.js'))).toBe(true);
    expect(commandLine.join(' ')).not.toContain('tsx');

    const login = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'a-long-admin-password' }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const post = (path: string, body: string, type = 'application/json') =>
      fetch(`${url}/api/v1${path}`, { method: 'POST', headers: { cookie, 'content-type': type }, body });

    const markdown = await post(
      '/ingest/md',
      JSON.stringify({
        title: 'Menus',
        namespace: 'user_docs',
        content: '# Menus\n\n## Configure menus\n\nDefine menu entries in the site configuration under the menus key.\n',
      }),
    );
    expect(markdown.status).toBe(200);
    // A spec is parsed on the worker pool's thread: the compiled thread entry must load.
    const spec = { openapi: '3.0.3', info: { title: 'Pets', version: '1' }, paths: { '/pets': { get: { summary: 'List pets', responses: { '200': { description: 'ok' } } } } } };
    const openapi = await post('/ingest/openapi?namespace=api_endpoints', JSON.stringify(spec));
    expect(openapi.status).toBe(200);

    const search = await post('/search', JSON.stringify({ query: 'configure menus', topK: 3 }));
    expect(search.status).toBe(200);
    const { results } = (await search.json()) as { results: Array<{ documentTitle: string }> };
    expect(results[0]?.documentTitle).toBe('Menus');

    const chat = await post('/chat', JSON.stringify({ message: 'How do I configure menus?', stream: false }));
    expect(chat.status).toBe(200);
    expect(((await chat.json()) as { answer: string }).answer).toContain('menu');
  });

  it('stops gracefully when pnpm receives SIGTERM', async () => {
    const pid = server.nodePid();
    server.pnpm.kill('SIGTERM');
    await until(() => !alive(pid), 'the server to exit');
    await exited(server.pnpm);
    expect(server.output()).toContain('"msg":"shutting down"');
    expect(server.output()).toContain('"msg":"stopped"');
    // The store's lock went with it.
    expect(existsSync(join(dataDir, 'kb.lock'))).toBe(false);
  });
});

const postgres = await isPostgresAvailable();

describe.runIf(postgres)('pnpm worker: the compiled job worker', () => {
  let database: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    database = await createEmptyPostgresDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('stops gracefully when pnpm receives SIGTERM', async () => {
    const prefix = testQueuePrefix();
    const worker = pnpm('worker', { DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, KB_QUEUE_PREFIX: prefix });
    try {
      await until(() => worker.output().includes('job worker running'), 'the worker to start', 90_000);
      const pid = worker.nodePid();
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('apps/server/dist/worker-main.js');
      worker.pnpm.kill('SIGTERM');
      await until(() => !alive(pid), 'the worker to exit');
      expect(worker.output()).toContain('"msg":"worker stopped"');
    } finally {
      if (worker.pnpm.exitCode === null) worker.pnpm.kill('SIGKILL');
      await dropRedisKeys(prefix);
    }
  }, 120_000);
});
