import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@kb/config';
import { createLogger } from '@kb/core';
import { seedEmbeddedStore } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../src/app.ts';

/**
 * The embedded store on a disk that fills up, for real: a small tmpfs mounted for the test (this
 * needs root, as in CI; elsewhere the suite is skipped and says why). Writes fail with a 503 that
 * says the disk is full, reads go on, and the store takes writes again, and opens cleanly, once
 * space is back.
 */
function mountTmpfs(dir: string, mb: number): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'not running as root on Linux (mounting a tmpfs needs it)';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}M`, 'kb-disk-full', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `could not mount a tmpfs: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
}

const root = mkdtempSync(join(tmpdir(), 'kb-disk-full-'));
const skipped = mountTmpfs(root, 96);
if (skipped) console.warn(`disk-full tests skipped: ${skipped}`);

const MB = 1024 * 1024;
const free = () => {
  const stats = statfsSync(root);
  return Number(stats.bavail) * Number(stats.bsize);
};
/** Fills the disk until `leave` bytes are free. */
const fill = (name: string, leave: number) => writeFileSync(join(root, name), Buffer.alloc(Math.max(0, free() - leave)));

describe.skipIf(skipped !== undefined)('the embedded store with its disk full', () => {
  const dataDir = join(root, 'store');
  let service: RunningService | undefined;
  let key: string;

  const start = async (minFreeMb: number) => {
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', KB_DATA_DIR: dataDir, KB_EMBEDDED_MIN_FREE_MB: String(minFreeMb) });
    service = await startService(config, { logger: createLogger({ level: 'silent' }) });
  };
  const stop = async () => {
    await service?.stop(1_000);
    service = undefined;
  };
  const api = (path: string, json?: unknown) =>
    fetch(`${service!.url}${path}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  const ingest = (slug: string, content = `## ${slug}\n\nHow to deploy ${slug} on a small server.`) =>
    api('/api/v1/ingest/md', { namespace: 'user_docs', slug, title: `Deploy ${slug}`, content });
  const expectDiskFull = async (res: Response) => {
    const body = (await res.json()) as { code: string; message: string };
    expect(res.status, JSON.stringify(body)).toBe(503);
    expect(body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: "The store's disk is full: nothing can be written until space is freed; reading still works" });
    expect(res.headers.get('retry-after')).toBe('60');
  };
  const expectReadsWork = async () => {
    const search = await api('/api/v1/search', { query: 'deploy on a small server' });
    expect(search.status).toBe(200);
    expect(((await search.json()) as { count: number }).count).toBeGreaterThan(0);
    expect((await api('/api/v1/documents')).status).toBe(200);
    expect((await fetch(`${service!.url}/readyz`)).status).toBe(200);
  };

  beforeAll(async () => {
    mkdirSync(dataDir);
    await seedEmbeddedStore(dataDir);
    await start(8);
    key = (await service!.services.keys.create({ label: 'disk', admin: true })).key;
    for (let i = 0; i < 3; i++) expect((await ingest(`before-${i}`)).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await stop().catch(() => undefined);
    if (!skipped) execFileSync('umount', ['-l', root]);
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses writes below KB_EMBEDDED_MIN_FREE_MB with a 503 saying the disk is full, and goes on reading', async () => {
    fill('filler-guard', 4 * MB);
    await new Promise((r) => setTimeout(r, 1_100)); // the guard's reading is a second old at most
    await expectDiskFull(await ingest('refused'));
    const chat = await api('/api/v1/chat', { message: 'How do I deploy?', stream: false });
    await expectDiskFull(chat);
    await expectReadsWork();
    rmSync(join(root, 'filler-guard'));
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await ingest('after-guard')).status).toBe(200);
  });

  it('answers the database\'s own "no space left on device" the same way, and opens cleanly once space is back', async () => {
    await stop();
    await start(0); // no margin: writes run until the disk itself refuses them
    fill('filler-real', MB / 4);
    const big = (i: number) => Array.from({ length: 400 }, (_, n) => `Paragraph ${n} of part ${i}: ${Math.random().toString(36).repeat(8)}`).join('\n\n');
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 200; i++) {
      last = await ingest(`fill-${i}`, `## Part ${i}\n\n${big(i)}`);
      statuses.push(last.status);
      if (last.status !== 200) break;
    }
    expect(statuses.at(-1), `statuses: ${statuses.join(',')}`).toBe(503);
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    await expectDiskFull(last!);
    await expectReadsWork();

    rmSync(join(root, 'filler-real'));
    expect((await ingest('after-space')).status).toBe(200);
    const stored = ((await (await api('/api/v1/documents?limit=200')).json()) as { total: number }).total;

    await stop();
    await start(8);
    expect((await fetch(`${service!.url}/readyz`)).status).toBe(200);
    expect(((await (await api('/api/v1/documents?limit=200')).json()) as { total: number }).total).toBe(stored);
    expect((await ingest('after-reopen')).status).toBe(200);
    await expectReadsWork();
  }, 120_000);
});
