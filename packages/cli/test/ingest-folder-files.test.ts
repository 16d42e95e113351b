import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pdfLibPdf, scannedPdf, wordDocx } from '@kb/content/testing';
import { seedEmbeddedStore } from '@kb/db/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, run, start } from './process.ts';

const work = mkdtempSync(join(tmpdir(), 'kb-folder-files-'));
for (const store of ['store', 'server-store']) await seedEmbeddedStore(join(work, store));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const docs = join(work, 'docs');
mkdirSync(join(docs, 'policies'), { recursive: true });
writeFileSync(join(docs, 'index.md'), '# Welcome\n\nStart here.\n');
writeFileSync(join(docs, 'guide.pdf'), await pdfLibPdf(3, { title: 'Key guide' }));
writeFileSync(join(docs, 'policies', 'travel.docx'), await wordDocx());
writeFileSync(join(docs, 'scan.pdf'), await scannedPdf());

const kb = (args: string[], store = 'store') => run('packages/cli/src/main.ts', args, { KB_DATA_DIR: join(work, store) });

describe('kb ingest-folder with PDF and Word files', () => {
  it('converts them beside Markdown, says why a file cannot be read, and skips them unchanged', async () => {
    const dry = await kb(['ingest-folder', docs, '--dry-run']);
    expect(dry.stdout).toMatch(/^\+\+!\+\n4 files: 3 parsed, 0 skipped, 1 failed, \d+ chunks/);
    const first = await kb(['ingest-folder', docs]);
    expect(first.code).toBe(1);
    // A batch's converted files first (guide.pdf, policies/travel.docx, scan.pdf), then its Markdown (index.md).
    expect(first.stdout).toMatch(/^\+\+!\+\n4 files: 3 ingested, 0 skipped, 1 failed, [1-9]\d* chunks/);
    expect(first.stderr).toMatch(/scan\.pdf: scan\.pdf: The PDF has no text layer .*OCR is not supported/);
    const second = await kb(['ingest-folder', docs]);
    expect(second.stdout).toMatch(/^\.\.!\.\n4 files: 0 ingested, 3 skipped, 1 failed/);
  }, 180_000);

  it('sends them through a running server as POST /ingest/file, with links under --base-url', async () => {
    const port = await freePort();
    const server = start('apps/server/src/main.ts', [], { KB_DATA_DIR: join(work, 'server-store'), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', KB_ADMIN_PASSWORD: 'folder-admin-password' });
    try {
      const url = `http://127.0.0.1:${port}`;
      for (let i = 0; ; i++) {
        if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) break;
        if (i > 600) throw new Error('server did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
      const login = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"password":"folder-admin-password"}' });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const created = await fetch(`${url}/api/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: '{"label":"folder"}' });
      const { key } = (await created.json()) as { key: string };
      const remote = await kb(['ingest-folder', docs, '--api-url', url, '--api-key', key, '--base-url', 'https://docs.example.com/']);
      expect(remote.stdout).toMatch(/^\+\+!\+\n4 files: 3 ingested, 0 skipped, 1 failed/);
      expect(remote.stderr).toMatch(/scan\.pdf: HTTP 422: scan\.pdf: The PDF has no text layer/);
      const again = await kb(['ingest-folder', docs, '--api-url', url, '--api-key', key, '--base-url', 'https://docs.example.com/']);
      expect(again.stdout).toMatch(/^\.\.!\.\n/);
      const found = await fetch(`${url}/api/v1/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: '{"query":"rotate the key, deploy it","topK":10,"source":"user_docs"}',
      });
      const { results } = (await found.json()) as { results: Array<Record<string, unknown>> };
      const chapter2 = results.find((r) => r.headingPath === 'Key guide > Chapter 2');
      expect(chapter2).toMatchObject({ documentTitle: 'Key guide', slug: 'guide.pdf', url: 'https://docs.example.com/guide.pdf', page: 2 });
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  }, 240_000);
});
