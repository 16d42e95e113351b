import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedEmbeddedStore } from '@kb/db/testing';
import { exited, freePort, repoRoot, waitFor } from './processes.ts';

// Admin sessions end when KB_ADMIN_PASSWORD changes, and `kb admin sessions end-all` ends them
// all: the compiled server restarted on one embedded store, its console cookies tried over HTTP.

const built = existsSync(join(repoRoot, 'apps/server/dist/main.js')) && existsSync(join(repoRoot, 'packages/cli/dist/main.js'));
if (!built) throw new Error('These tests run the compiled server and command line: run `pnpm build` first (`pnpm test` does)');

const dataDir = mkdtempSync(join(tmpdir(), 'kb-admin-sessions-'));
const started: ChildProcess[] = [];
afterAll(async () => {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const env = (password: string) => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), KB_DATA_DIR: dataDir, KB_ADMIN_PASSWORD: password, LOG_LEVEL: 'warn', HOST: '127.0.0.1' });

async function startServer(password: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--conditions=production', 'apps/server/dist/main.js'], { cwd: repoRoot, env: { ...env(password), PORT: String(port) }, stdio: ['ignore', 'ignore', 'ignore'] });
  started.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`, 180_000);
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

async function login(url: string, password: string): Promise<{ status: number; cookie: string }> {
  const res = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) });
  return { status: res.status, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]! };
}

/** An admin-only call with the console's cookie: 200 while the session lives, 401 once it has ended. */
async function adminCall(url: string, cookie: string): Promise<number> {
  return (await fetch(`${url}/api/v1/keys`, { headers: { cookie } })).status;
}

function kb(args: string[], password: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=production', 'packages/cli/dist/main.js', ...args], { cwd: repoRoot, env: env(password), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('ending admin sessions', () => {
  it('refuses a session made under the old password once the server restarts with a new one, and end-all ends the rest', async () => {
    await seedEmbeddedStore(dataDir);
    let server = await startServer('first-admin-password');
    const first = await login(server.url, 'first-admin-password');
    expect(first.status).toBe(200);
    expect(first.cookie).toMatch(/^kb_session=/);
    expect(await adminCall(server.url, first.cookie)).toBe(200);
    await server.stop();

    // The operator changes the password: the old cookie is refused, the old password too.
    server = await startServer('second-admin-password');
    expect(await adminCall(server.url, first.cookie)).toBe(401);
    expect((await login(server.url, 'first-admin-password')).status).toBe(401);
    const second = await login(server.url, 'second-admin-password');
    expect(second.status).toBe(200);
    const third = await login(server.url, 'second-admin-password');
    expect(await adminCall(server.url, second.cookie)).toBe(200);
    expect(await adminCall(server.url, third.cookie)).toBe(200);

    // The embedded store is the server's while it runs: the command says so and what to do.
    const locked = await kb(['admin', 'sessions', 'end-all'], 'second-admin-password');
    expect(locked.code).toBe(2);
    expect(locked.output).toContain('change KB_ADMIN_PASSWORD and restart');
    await server.stop();

    const ended = await kb(['admin', 'sessions', 'end-all'], 'second-admin-password');
    expect(ended.output).toContain('Ended 3 admin sessions');
    expect(ended.code).toBe(0);

    // Same password, every session gone.
    server = await startServer('second-admin-password');
    expect(await adminCall(server.url, second.cookie)).toBe(401);
    expect(await adminCall(server.url, third.cookie)).toBe(401);
    expect(await adminCall(server.url, (await login(server.url, 'second-admin-password')).cookie)).toBe(200);
    await server.stop();
  }, 900_000);
});
