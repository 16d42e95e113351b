import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, run, runToEnd, seedEmbeddedStore, stopAll, waitFor } from '../../../apps/server/test/processes.ts';

const exec = promisify(execFile);
const sdkDir = join(import.meta.dirname, '..');
const fixtures = join(import.meta.dirname, 'fixtures');
/** The JSON body limit the server runs with: an ingest above it must come back as a KbError 413. */
const MAX_BODY_BYTES = 1_000_000;

/**
 * The acceptance test of the SDK as a user gets it: `pnpm pack` (which builds it), installed with
 * npm into an empty Node project that has neither tsx nor the server's packages, used by a plain
 * .mjs script against a live server in embedded mode, and its declarations type-checked there.
 */
describe('the packed SDK in a plain Node project', () => {
  let dir: string;
  let app: string;
  let server: ChildProcess | undefined;
  let url: string;
  let adminKey: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kb-sdk-'));
    app = join(dir, 'app');
    const packed = await exec('pnpm', ['pack', '--pack-destination', dir], { cwd: sdkDir, maxBuffer: 16 * 1024 * 1024 });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    expect(tarball, packed.stdout + packed.stderr).toBeDefined();

    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sdk-acceptance', private: true, type: 'module' }));
    await exec('npm', ['install', join(dir, tarball!), '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: app });
    copyFileSync(join(fixtures, 'acceptance.mjs'), join(app, 'acceptance.mjs'));
    copyFileSync(join(fixtures, 'consumer.ts'), join(app, 'consumer.ts'));

    const env = { KB_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn', HOST: '127.0.0.1', KB_MAX_BODY_BYTES: String(MAX_BODY_BYTES) };
    // A new store copied from one migrated once per machine (seconds of initdb spared); `kb migrate` still runs on it.
    await seedEmbeddedStore(env.KB_DATA_DIR);
    // The embedded store belongs to one process at a time: the key is made before the server starts.
    const migrated = await runToEnd(['packages/cli/src/main.ts', 'migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    const created = await runToEnd(['packages/cli/src/main.ts', 'keys', 'create', '--label', 'admin', '--admin', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    adminKey = (JSON.parse(created.stdout) as { key: string }).key;
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = run(['apps/server/src/main.ts'], { ...env, PORT: String(port) });
    await waitFor(`${url}/readyz`, 120_000);
  }, 600_000);

  afterAll(async () => {
    if (server) await stopAll([server]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the SDK and its two dependencies only: no tsx, no server packages', () => {
    expect(readdirSync(join(app, 'node_modules')).filter((name) => !name.startsWith('.')).sort()).toEqual([
      '@kb',
      'eventsource-parser',
      'openapi-fetch',
      'openapi-typescript-helpers',
    ]);
    expect(readdirSync(join(app, 'node_modules', '@kb'))).toEqual(['sdk']);
    expect(readdirSync(join(app, 'node_modules', '@kb', 'sdk', 'dist'))).toContain('index.d.ts');
  });

  it('runs the whole journey of a plain .mjs script against a live server', async () => {
    const { stdout } = await exec(process.execPath, ['acceptance.mjs'], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', KB_URL: url, KB_ADMIN_KEY: adminKey, KB_TOO_LARGE_BYTES: String(MAX_BODY_BYTES + 100_000) },
      maxBuffer: 16 * 1024 * 1024,
    });
    const report = JSON.parse(stdout);
    expect(report.openapi).toEqual({ upserted: 2, unchanged: 0, total: 2 });
    expect(report.searchTop).toBe('Menus');
    expect(report.petsTop).toBe('Add a pet to the store');
    expect(report.streamed.events).toBeGreaterThanOrEqual(2);
    expect(report.streamed.answer).toMatch(/nested menu/);
    expect(report.collected.sources).toEqual(['Menus']);
    expect(report.cancel).toEqual({ name: 'AbortError', eventsBeforeCancel: 1 });
    expect(report.send).toEqual({ language: 'en', hasAnswer: true });
    expect(report.conversations).toBeGreaterThanOrEqual(3);
    expect(report.faq.pairs).toBeGreaterThanOrEqual(5);
    expect(report.faq.sources).toBe(1);
    expect(report.revoked).toEqual({ revoked: true, id: report.keyId });
    expect(report.errors.revokedKey).toMatchObject({ isKbError: true, status: 401, code: 'UNAUTHORIZED' });
    expect(report.errors.unknownKey).toMatchObject({ isKbError: true, status: 404, code: 'NOT_FOUND' });
    expect(report.errors.tooLarge).toMatchObject({ isKbError: true, status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(report.errors.unknownField).toEqual({ status: 400, message: 'Input validation failed: unknown field "topk"', keys: ['topk'] });
    expect(report.errors.rateLimited).toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS' });
    expect(report.errors.rateLimited.retryAfter).toBeGreaterThan(0);
    expect(report.network).toEqual({ name: 'KbNetworkError', isNetworkError: true });
  }, 120_000);

  it('type-checks a TypeScript program against the packed declarations alone', async () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM', 'DOM.AsyncIterable'], types: [] },
        files: ['consumer.ts'],
      }),
    );
    const tsc = createRequire(join(sdkDir, 'package.json')).resolve('typescript/bin/tsc');
    const checked = await exec(process.execPath, [tsc, '-p', app]).catch((error: { stdout: string; code: number }) => error);
    expect('code' in checked ? checked.stdout : '').toBe('');
  }, 120_000);
});
