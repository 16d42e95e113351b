import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));
export const ADMIN_ROOT = join(HERE, '..');
/** The server's entry point, run from its sources (as `pnpm dev` does). */
const SERVER_MAIN = join(ADMIN_ROOT, '../server/src/main.ts');
/** Screenshots land here (gitignored). */
export const SCREENSHOTS = join(ADMIN_ROOT, 'test-results');

export const ADMIN_PASSWORD = 'console-test-password';

/** Debian's chromium by default; KB_CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.KB_CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Whether the browser tests can run. Like the PostgreSQL and Redis suites, they are skipped with
 * a warning on a machine without Chromium, except in CI, which must have it (.ci/run installs it).
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const hint = `install Debian's chromium package (apt-get install chromium) or set KB_CHROMIUM_PATH`;
  if (process.env.CI === 'true') throw new Error(`Chromium is required in CI but there is none at ${CHROMIUM_PATH}: ${hint}`);
  console.warn(`No Chromium at ${CHROMIUM_PATH}: the admin console's browser tests are skipped (${hint}).`);
  return false;
}

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * The real server in a process of its own, on the embedded store in a fresh folder, on a free
 * port: what `pnpm start` runs, with the environment given. Resolves once it listens.
 */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'kb-admin-e2e-'));
  const childEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    // The services-mode variables of a developer's shell would point the server at a shared store.
    if (value !== undefined && !/^(DATABASE_URL|REDIS_URL|KB_|WIKI_|VOYAGE_|ANTHROPIC_)/.test(name)) childEnv[name] = value;
  }
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SERVER_MAIN], {
    cwd: ADMIN_ROOT,
    env: { ...childEnv, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', KB_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The server did not start within 90 s:\n${output}`)), 90_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((text) => text.includes('knowledge base service listening'));
      if (line) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The server exited (${code}) before it listened:\n${output}`));
    });
  });
  // Keep reading its log so the pipe never fills.
  child.stdout!.resume();
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium) or set KB_CHROMIUM_PATH`);
  }
  await mkdir(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    // Chromium's sandbox cannot start as root (CI runs as root).
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}
