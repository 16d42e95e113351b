/**
 * What the browser tests of the admin console and the assistant share: Debian's Chromium driven
 * by playwright-core (it downloads no browser of its own), the real server in a process of its
 * own, a documentation page of another origin that embeds the assistant under a strict policy and
 * hostile CSS, and axe-core's scan.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedEmbeddedStore } from '@kb/db/testing';
import { entryArgs } from '@kb/vitest-config/entry';
import { chromium, type Browser, type Page } from 'playwright-core';

const REPOSITORY = join(dirname(fileURLToPath(import.meta.url)), '../..');
/** The server's entry point: compiled when the build is current (half of tsx's start-up), else its sources. */
const SERVER_MAIN = 'apps/server/src/main.ts';

/** Debian's chromium by default; KB_CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.KB_CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Whether the browser tests can run. Like the PostgreSQL and Redis suites, they are skipped with
 * a warning on a machine without Chromium, except in CI, which must have it (.ci/run installs it).
 */
export function chromiumAvailable(suite: string): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const hint = `install Debian's chromium package (apt-get install chromium) or set KB_CHROMIUM_PATH`;
  if (process.env.CI === 'true') throw new Error(`Chromium is required in CI but there is none at ${CHROMIUM_PATH}: ${hint}`);
  console.warn(`No Chromium at ${CHROMIUM_PATH}: ${suite} browser tests are skipped (${hint}).`);
  return false;
}

/** Chromium, headless, with a folder for screenshots made. */
export async function launchBrowser(screenshots: string): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium) or set KB_CHROMIUM_PATH`);
  }
  await mkdir(screenshots, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    // Chromium's sandbox cannot start as root (CI runs as root).
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

export interface RunningServer {
  url: string;
  /** What the process wrote to stderr so far (where it shows a new store's first admin key). */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * The real server in a process of its own, on a new embedded store in a fresh folder, on a free
 * port: what `pnpm start` runs, with the environment given. Resolves once it listens.
 */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'kb-browser-e2e-'));
  // A new store without rows or keys, copied from one migrated once per machine: the server's
  // first start on it is the same (it still makes the first admin key) without seconds of initdb.
  await seedEmbeddedStore(dataDir);
  const childEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    // The services-mode variables of a developer's shell would point the server at a shared store.
    if (value !== undefined && !/^(DATABASE_URL|REDIS_URL|KB_|WIKI_|VOYAGE_|ANTHROPIC_)/.test(name)) childEnv[name] = value;
  }
  const child: ChildProcess = spawn(process.execPath, entryArgs(REPOSITORY, SERVER_MAIN), {
    cwd: REPOSITORY,
    env: { ...childEnv, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', KB_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    // A bound on a hang, not on speed: a start-up took over 90 s at load 18 on 2 cores.
    const timer = setTimeout(() => {
      // Stopped, or it would serve on past the suite (one was found running 40 minutes later).
      child.kill('SIGKILL');
      reject(new Error(`The server did not start within 120 s:\n${output}${errors}`));
    }, 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((text) => text.includes('knowledge base service listening'));
      if (line) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The server exited (${code}) before it listened:\n${output}${errors}`));
    });
  });
  // Keep reading its log so the pipe never fills.
  child.stdout!.resume();
  return {
    url,
    stderr: () => errors,
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

export interface HostPage {
  url: string;
  origin: string;
  close(): Promise<void>;
}

/**
 * A documentation page of its own origin that embeds the assistant with its one script tag, under
 * the strict policy the docs give (the server in script-src and connect-src, nothing inline) and
 * CSS that unsets everything and hides every button.
 */
export async function startHostPage(options: {
  server: string;
  /** The publishable key, or where to read it when the page is served (a key made for the page's origin). */
  key: string | (() => string);
  host: 'localhost' | '127.0.0.2';
  extraScriptSrc?: string;
  attributes?: Record<string, string>;
}): Promise<HostPage> {
  const attributes = Object.entries(options.attributes ?? {})
    .map(([name, value]) => ` data-${name}="${value}"`)
    .join('');
  const page = (key: string) => `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Example docs</title>
<link rel="stylesheet" href="/hostile.css"></head>
<body>
<main><h1>Example documentation</h1><p>Some page of somebody's documentation.</p><button id="host-button">A button of the page</button>
${Array.from({ length: 30 }, (_, n) => `<p>Paragraph ${n} of the page, long enough to scroll.</p>`).join('\n')}</main>
<script src="${options.server}/widget/v1/kb-assistant.js" data-key="${key}"${attributes} defer></script>
</body></html>`;
  const csp = [
    "default-src 'none'",
    `script-src ${options.server}${options.extraScriptSrc ? ` ${options.extraScriptSrc}` : ''}`,
    `connect-src ${options.server}`,
    "style-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const server: Server = createServer((req, res) => {
    if (req.url === '/hostile.css') {
      res.writeHead(200, { 'Content-Type': 'text/css' });
      res.end('* { all: unset; } button { display: none !important; } div { color: red !important; font-size: 40px !important; } body { display: block; padding: 20px; }');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': csp });
    res.end(page(typeof options.key === 'string' ? options.key : options.key()));
  });
  await new Promise<void>((resolve) => server.listen(0, options.host, resolve));
  const origin = `http://${options.host}:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    origin,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown; failureSummary?: string }>;
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical findings on the page (it reads open shadow roots). Run through
 * the DevTools protocol, which the page's Content-Security-Policy does not govern.
 */
export async function axeViolations(page: Page, include?: string): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (selector) => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(selector ? { include: [selector] } : document, { resultTypes: ['violations'] });
    return result.violations;
  }, include);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
