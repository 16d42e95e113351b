import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { adminDir } from '@kb/admin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './helpers.ts';

/** A GET (or another method) without fetch's decompression or redirects, to see what the server sends. */
function raw(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

function expectStrictPolicy(csp: string | undefined): void {
  expect(csp).toBeDefined();
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("base-uri 'none'");
  // Nothing inline, nothing evaluated, nothing from elsewhere.
  expect(csp).not.toMatch(/unsafe|https?:|\*/);
}

describe('GET /admin, the built console', () => {
  let service: TestService;
  let page: string;
  let assets: string[];

  beforeAll(async () => {
    if (!existsSync(join(adminDir, 'index.html'))) throw new Error(`The admin console is not built (${adminDir}): run pnpm build`);
    service = await startTestService('pglite');
    page = await (await fetch(`${service.url}/admin/`)).text();
    assets = [...page.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => new URL(match[1]!, `${service.url}/admin/`).pathname);
  });
  afterAll(() => service?.close());

  it('is an HTML page, revalidated on each load, under a strict Content-Security-Policy', async () => {
    const res = await raw(`${service.url}/admin/`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expectStrictPolicy(res.headers['content-security-policy'] as string);
    // No inline script or style for the policy to refuse, nothing from another host.
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).not.toMatch(/<style|\sstyle="/);
    expect(page).not.toMatch(/(?:href|src)="(?:https?:)?\/\//);
    // The server tells the page that sign-in is configured.
    expect(page).toContain('<meta name="kb-admin-login" content="enabled">');
  });

  it('loads its hashed assets from /admin/assets/, cached for good, gzipped when asked, 304 on a matching ETag', async () => {
    const scripts = assets.filter((path) => path.startsWith('/admin/assets/') && path.endsWith('.js'));
    const styles = assets.filter((path) => path.startsWith('/admin/assets/') && path.endsWith('.css'));
    expect(scripts.length).toBe(1);
    expect(styles.length).toBe(1);
    for (const [path, type] of [
      [scripts[0]!, 'text/javascript; charset=utf-8'],
      [styles[0]!, 'text/css; charset=utf-8'],
    ] as const) {
      expect(path).toMatch(/-[\w-]{8,}\.(js|css)$/);
      const plain = await raw(`${service.url}${path}`);
      expect(plain.status, path).toBe(200);
      expect(plain.headers['content-type'], path).toBe(type);
      expect(plain.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
      const zipped = await raw(`${service.url}${path}`, { 'accept-encoding': 'gzip' });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
      const again = await raw(`${service.url}${path}`, { 'if-none-match': String(plain.headers.etag) });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      // gzip refused (q=0), alone or against any other coding: the plain bytes.
      for (const refusing of ['gzip;q=0', 'br, gzip; q=0', '*, gzip;q=0', 'identity']) {
        const unzipped = await raw(`${service.url}${path}`, { 'accept-encoding': refusing });
        expect(unzipped.headers['content-encoding'], refusing).toBeUndefined();
        expect(unzipped.body.equals(plain.body), refusing).toBe(true);
      }
      for (const taking of ['gzip;q=0.5, br', 'deflate, *', 'GZIP']) {
        expect((await raw(`${service.url}${path}`, { 'accept-encoding': taking })).headers['content-encoding'], taking).toBe('gzip');
      }
      // "*" matches any current representation.
      expect((await raw(`${service.url}${path}`, { 'if-none-match': '*' })).status).toBe(304);
      expect((await raw(`${service.url}${path}`, { 'if-none-match': '"other", W/' + String(plain.headers.etag) })).status).toBe(304);
      expect((await raw(`${service.url}${path}`, { 'if-none-match': '"other"' })).status).toBe(200);
    }
    const icon = await raw(`${service.url}/admin/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it("answers the app's own pages with index.html, and sends /admin to /admin/", async () => {
    const index = await raw(`${service.url}/admin/`);
    for (const path of ['/admin/keys', '/admin/knowledge/7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48', '/admin/no-such-page/deeper']) {
      const res = await raw(`${service.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.etag, path).toBe(index.headers.etag);
      expect(res.headers['cache-control'], path).toBe('no-cache');
      expectStrictPolicy(res.headers['content-security-policy'] as string);
    }
    const bare = await raw(`${service.url}/admin`);
    expect(bare.status).toBe(301);
    expect(new URL(String(bare.headers.location), `${service.url}/admin`).pathname).toBe('/admin/');
    const head = await raw(`${service.url}/admin/keys`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it('answers a JSON 404 for a missing file, never the page', async () => {
    const script = assets.find((path) => path.endsWith('.js'))!;
    for (const path of [
      '/admin/assets/index-missing.js',
      '/admin/assets/',
      '/admin/assets/constructor',
      '/admin/assets/__proto__.js',
      `${script}/x`,
      script.replace('/assets/', '/assets/sub/'),
      '/admin/assets/%2e%2e%2findex.html',
      '/admin/assets/..%2F..%2Fpackage.json',
      '/admin/index.html',
      '/admin/package.json',
      '/admin/missing.png',
      '/admin/keys/logo.svg',
    ]) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect((await fetch(`${service.url}/admin/`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${service.url}/admin/keys`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('GET /admin before the console is built, and without an admin password', () => {
  let service: TestService;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kb-admin-dist-'));
    service = await startTestService('pglite', { adminDir: dir, env: { KB_ADMIN_PASSWORD: '' } });
  });
  afterAll(async () => {
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a page saying to run pnpm build, not a 500; its assets are 404s', async () => {
    for (const path of ['/admin/', '/admin/keys']) {
      const res = await raw(`${service.url}${path}`);
      expect(res.status, path).toBe(503);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expectStrictPolicy(res.headers['content-security-policy'] as string);
      expect(res.body.toString()).toContain('<code>pnpm build</code>');
    }
    expect((await fetch(`${service.url}/admin/assets/index-abc12345.js`)).status).toBe(404);
  });

  it('serves a build made while the server runs, telling the page that sign-in is not configured', async () => {
    await mkdir(join(dir, 'assets'));
    await writeFile(
      join(dir, 'index.html'),
      '<!DOCTYPE html><html><head><meta name="kb-admin-login" content="unknown"><script type="module" src="/admin/assets/index-abc12345.js"></script></head><body></body></html>',
    );
    await writeFile(join(dir, 'assets', 'index-abc12345.js'), 'console.log("console")');
    const res = await raw(`${service.url}/admin/`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toContain('<meta name="kb-admin-login" content="disabled">');
    const asset = await raw(`${service.url}/admin/assets/index-abc12345.js`);
    expect(asset.status).toBe(200);
    expect(asset.body.toString()).toBe('console.log("console")');
    // Sign-in itself says why it cannot work.
    const login = await fetch(`${service.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"password":"anything at all"}' });
    expect(login.status).toBe(503);
    expect(((await login.json()) as { message: string }).message).toContain('KB_ADMIN_PASSWORD');
  });
});
