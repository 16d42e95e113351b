import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './helpers.ts';

/** A GET without fetch's decompression, to see the bytes and headers the server sends. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

describe('GET /api/v1/docs, the API reference', () => {
  let service: TestService;
  let page: string;
  let assets: string[];
  beforeAll(async () => {
    service = await startTestService('pglite');
    const res = await fetch(`${service.url}/api/v1/docs`);
    page = await res.text();
    // Every file the page loads, resolved as a browser would against the page's address.
    assets = [...page.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => new URL(match[1]!, `${service.url}/api/v1/docs`).href);
  });
  afterAll(() => service?.close());

  it('is an HTML page, without credentials, with a strict Content-Security-Policy', async () => {
    const res = await fetch(`${service.url}/api/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page).toContain('<div id="swagger-ui"></div>');
    // No inline script (the policy would refuse it) and nothing from another host: it works offline.
    expect(page).not.toMatch(/<script>(?!<)/);
    expect(page).not.toMatch(/(?:href|src)="(?:https?:)?\/\//);
  });

  it('loads every asset it names from this server, cached for good under a versioned path', async () => {
    expect(assets.map((asset) => new URL(asset).pathname.replace(/ui-[\d.]+/, 'ui-V')).sort()).toEqual([
      '/api/v1/docs/ui-V/favicon-16x16.png',
      '/api/v1/docs/ui-V/favicon-32x32.png',
      '/api/v1/docs/ui-V/kb-docs.js',
      '/api/v1/docs/ui-V/swagger-ui-bundle.js',
      '/api/v1/docs/ui-V/swagger-ui.css',
      '/api/v1/openapi.json',
    ]);
    const types: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.png': 'image/png', '.json': 'application/json' };
    for (const asset of assets) {
      const res = await fetch(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-type'), asset).toBe(types[asset.slice(asset.lastIndexOf('.'))]);
      expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
      if (asset.includes('/docs/')) expect(res.headers.get('cache-control'), asset).toBe('public, max-age=31536000, immutable');
    }
  });

  it('starts Swagger UI on the service document, never calling the public validator', async () => {
    const script = await (await fetch(assets.find((asset) => asset.endsWith('/kb-docs.js'))!)).text();
    expect(script).toContain('SwaggerUIBundle(');
    expect(script).toContain('validatorUrl: null');
    expect(page).toContain('data-openapi="openapi.json"');
    const document = (await (await fetch(`${service.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(document.paths['/chat']?.post).toBeDefined();
  });

  it('sends the bundle gzipped when asked, and answers 304 to a matching ETag', async () => {
    const bundle = assets.find((asset) => asset.endsWith('/swagger-ui-bundle.js'))!;
    const plain = await rawGet(bundle);
    const zipped = await rawGet(bundle, { 'accept-encoding': 'gzip, deflate' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    const again = await rawGet(bundle, { 'if-none-match': String(plain.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const pageAgain = await rawGet(`${service.url}/api/v1/docs`, { 'if-none-match': String((await rawGet(`${service.url}/api/v1/docs`)).headers.etag) });
    expect(pageAgain.status).toBe(304);
  });

  it('answers HEAD without a body, sends /docs/ to /docs, and a JSON 404 for any other file or version', async () => {
    const head = await fetch(`${service.url}/api/v1/docs`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const versioned = new URL(assets.find((asset) => asset.endsWith('/swagger-ui.css'))!).pathname;
    const slash = await fetch(`${service.url}/api/v1/docs/`, { redirect: 'manual' });
    expect(slash.status).toBe(301);
    expect(new URL(slash.headers.get('location')!, `${service.url}/api/v1/docs/`).pathname).toBe('/api/v1/docs');
    for (const path of [
      versioned.replace('swagger-ui.css', 'package.json'),
      versioned.replace('swagger-ui.css', '../package.json'),
      versioned.replace(/ui-[\d.]+/, 'ui-0.0.1'),
      `${versioned}/x`,
      '/api/v1/docs/swagger-ui.css',
      versioned.replace('swagger-ui.css', 'constructor'),
      versioned.replace('swagger-ui.css', '__proto__'),
    ]) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect((await fetch(`${service.url}/api/v1/docs`, { method: 'POST' })).status).toBe(404);
  });
});
