import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { widgetFile } from '@kb/widget';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './helpers.ts';

/** A GET without fetch's decompression, to see what the server sends. */
function raw(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
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

const KEY = `kb_pub_${'a1B2c3D4e5'.repeat(4)}`;

describe("the assistant's script and the home page", () => {
  let service: TestService;
  let built: Buffer;

  beforeAll(async () => {
    if (!existsSync(widgetFile)) throw new Error(`The assistant is not built (${widgetFile}): run pnpm build`);
    built = readFileSync(widgetFile);
    service = await startTestService('pglite');
  });
  afterAll(() => service?.close());

  it('serves /widget/v1/kb-assistant.js briefly cached, revalidated by ETag, gzipped when asked, to any origin', async () => {
    const plain = await raw(`${service.url}/widget/v1/kb-assistant.js`);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=300');
    expect(plain.headers['access-control-allow-origin']).toBe('*');
    expect(plain.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    expect(plain.body.equals(built)).toBe(true);
    const etag = plain.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);

    const gzipped = await raw(`${service.url}/widget/v1/kb-assistant.js`, { 'accept-encoding': 'gzip, br' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).equals(built)).toBe(true);
    expect(gzipped.body.length).toBeLessThan(built.length / 2);

    const again = await raw(`${service.url}/widget/v1/kb-assistant.js`, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);

    const head = await raw(`${service.url}/widget/v1/kb-assistant.js`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it('serves the same bytes at a content-hashed address cached for good; another hash or file is a 404', async () => {
    const page = (await (await fetch(`${service.url}/?key=${KEY}`)).text()) as string;
    const hashed = /<script src="(\/widget\/v1\/kb-assistant\.[0-9a-f]{12}\.js)" data-key="([^"]+)"/.exec(page);
    expect(hashed).not.toBeNull();
    expect(hashed![2]).toBe(KEY);
    const res = await raw(`${service.url}${hashed![1]}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body.equals(built)).toBe(true);

    for (const path of ['/widget/v1/kb-assistant.000000000000.js', '/widget/v1/other.js', '/widget/v2/kb-assistant.js', '/widget/']) {
      const missing = await fetch(`${service.url}${path}`);
      expect(missing.status, path).toBe(404);
      expect(((await missing.json()) as { code: string }).code).toBe('NOT_FOUND');
    }
  });

  it('answers GET / with a page about the server, under a policy with no inline script, style or other host', async () => {
    const res = await raw(`${service.url}/`, { host: 'kb.test:8080' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    const page = res.body.toString('utf8');
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).not.toMatch(/<style|\sstyle="/);
    for (const link of ['/admin/', '/api/v1/docs', '/api/v1/openapi.json']) expect(page).toContain(`href="${link}"`);
    // How to embed, with this server's address; without a key, a form asks for one and no script runs.
    expect(page).toContain('&#60;script src=&#34;http://kb.test:8080/widget/v1/kb-assistant.js&#34; data-key=&#34;kb_pub_…&#34; defer&#62;&#60;/script&#62;');
    expect(page).toContain('name="key"');
    expect(page).not.toContain('<script');

    const css = await raw(`${service.url}/home.css`);
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('puts nothing but a well-formed publishable key on the page, and no hostile Host', async () => {
    for (const key of ['kb_pub_short', `"><script>alert(1)</script>`, `kb_${'a'.repeat(40)}`]) {
      const page = await (await fetch(`${service.url}/?key=${encodeURIComponent(key)}`)).text();
      expect(page).not.toContain('<script');
      expect(page).not.toContain('alert(1)');
    }
    const hostile = await raw(`${service.url}/`, { host: 'evil"><script>x</script>' });
    expect(hostile.body.toString('utf8')).not.toContain('evil');
    expect((await fetch(`${service.url}/?other=1`)).status).toBe(400);
  });
});
