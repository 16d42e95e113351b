import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { securitySuite } from './security.ts';

const PAGE = `<!doctype html><html><head><title>Widget setup</title></head><body>
<nav><a href="/">Home</a> <a href="/pricing">Navigation-only pricing link</a></nav>
<main><h1>Set up widgets</h1><p>Widgets need a <a href="/keys">licence key</a> before first use.</p>
<h2>Configuration</h2><pre><code class="language-yaml">widgets:\n  enabled: true</code></pre>
<table><tr><th>Option</th><th>Default</th></tr><tr><td>enabled</td><td>false</td></tr></table></main>
<footer>Copyright footer text</footer><script>trackEverything()</script></body></html>`;

/** A local site: pages, a redirect, and a request counter (the canary). */
function startSite(): Promise<{ server: Server; base: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    if (req.url === '/guide') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    } else if (req.url === '/old') {
      res.writeHead(301, { location: '/guide' });
      res.end();
    } else if (req.url === '/notes.md') {
      res.writeHead(200, { 'content-type': 'text/markdown' });
      res.end('# Release notes\n\nVersion 2 adds dark mode.\n');
    } else if (req.url === '/file.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end('%PDF-1.4');
    } else if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(100_000));
    } else if (req.url === '/loop' || req.url === '/to-ftp') {
      res.writeHead(302, { location: req.url === '/loop' ? '/loop' : 'ftp://127.0.0.1/file' });
      res.end();
    } else if (req.url === '/slow') {
      // never answers
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, base: `http://127.0.0.1:${port}`, hits: () => hits });
    }),
  );
}

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Widget API', version: '1.2.0' },
  paths: {
    '/widgets': {
      get: {
        operationId: 'listWidgets',
        summary: 'List widgets',
        tags: ['widgets'],
        externalDocs: { url: 'https://docs.example.com/widgets/list' },
        responses: { '200': { description: 'The widgets' } },
      },
      post: {
        operationId: 'createWidget',
        summary: 'Create a widget',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Widget' } } } },
        responses: { '201': { description: 'Created' } },
      },
    },
    '/health': { get: { summary: 'No operation id', responses: { '200': { description: 'ok' } } } },
  },
  components: { schemas: { Widget: { type: 'object', properties: { name: { type: 'string', description: 'Display name' } } } } },
};

describe('URL and OpenAPI ingestion', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let open: TestService; // KB_ALLOW_PRIVATE_URLS=true: the local site is reachable
  let guarded: TestService; // the default: private addresses refused
  let key: string;
  let guardedKey: string;
  beforeAll(async () => {
    site = await startSite();
    // A fetch timeout that pages which answer meet on a busy machine; /slow never answers.
    open = await startTestService('pglite', {
      env: { KB_ALLOW_PRIVATE_URLS: 'true', KB_FETCH_TIMEOUT_MS: '10000', KB_MAX_FETCH_BYTES: '65536', KB_MAX_REDIRECTS: '2' },
    });
    guarded = await startTestService('pglite');
    key = (await open.createKey()).key;
    guardedKey = (await guarded.createKey()).key;
  });
  afterAll(async () => {
    await open?.close();
    await guarded?.close();
    site?.server.closeAllConnections();
    site?.server.close();
  });

  it('ingests a page\'s main content under its own title, and skips it unchanged', async () => {
    const res = await open.api('/api/v1/ingest/url', { method: 'POST', key, json: { url: `${site.base}/old`, namespace: 'user_docs' } });
    expect(res.status).toBe(200);
    const first = await json(res);
    expect(first).toEqual({ documentId: expect.any(String), skipped: false });
    const again = await json(await open.api('/api/v1/ingest/url', { method: 'POST', key, json: { url: `${site.base}/guide`, namespace: 'user_docs' } }));
    expect(again).toEqual({ documentId: first.documentId, skipped: true });

    const found = await json(await open.api('/api/v1/search', { method: 'POST', key, json: { query: 'licence key widgets', topK: 5 } }));
    // The link is the final URL, after the redirect; the slug too.
    expect(found.results[0]).toMatchObject({ documentId: first.documentId, documentTitle: 'Widget setup', slug: `${site.base}/guide`, url: `${site.base}/guide` });
    const all = found.results.map((r: { content: string }) => r.content).join('\n');
    expect(all).not.toContain('Navigation-only');
    expect(all).not.toContain('Copyright footer');
    expect(all).not.toContain('trackEverything');
  });

  it('ingests Markdown as it is', async () => {
    const res = await json(await open.api('/api/v1/ingest/url', { method: 'POST', key, json: { url: `${site.base}/notes.md`, namespace: 'tech_docs' } }));
    expect(res.skipped).toBe(false);
    const found = await json(await open.api('/api/v1/search', { method: 'POST', key, json: { query: 'dark mode', source: 'tech_docs' } }));
    expect(found.results[0]).toMatchObject({ documentTitle: 'Release notes', headingPath: 'Release notes' });
  });

  it('answers 422 saying why a page could not be fetched, 400 for malformed URLs', async () => {
    const cases: Array<[string, string]> = [
      [`${site.base}/missing`, 'the server answered 404 Not Found'],
      [`${site.base}/file.pdf`, 'unsupported content type "application/pdf" (accepted: text/html, application/xhtml+xml, text/markdown, text/plain)'],
      [`${site.base}/huge`, 'too large: the page is larger than the limit of 65536 bytes'],
      [`${site.base}/slow`, 'timeout: the page did not arrive within 10 s'],
      [`${site.base}/loop`, 'too many redirects: more than 2'],
      [`${site.base}/to-ftp`, 'a redirect led to the scheme "ftp:": only http and https URLs are fetched'],
      ['http://127.0.0.1:9/', 'connection refused: nothing accepts connections at that address and port'],
    ];
    for (const [url, why] of cases) {
      const res = await open.api('/api/v1/ingest/url', { method: 'POST', key, json: { url, namespace: 'user_docs' } });
      expect(res.status, url).toBe(422);
      expect(await json(res)).toEqual({ message: `The URL could not be fetched: ${why}`, code: 'UNPROCESSABLE_CONTENT', requestId: expect.any(String) });
    }
    for (const url of ['not a url', 'ftp://example.com/file', 'file:///etc/passwd', 'javascript:alert(1)']) {
      const res = await open.api('/api/v1/ingest/url', { method: 'POST', key, json: { url, namespace: 'user_docs' } });
      expect(res.status, url).toBe(400);
    }
  });

  it('refuses private addresses by default, and the site never sees a request', async () => {
    const before = site.hits();
    const port = new URL(site.base).port;
    for (const url of [`${site.base}/guide`, `http://localhost:${port}/guide`, `http://2130706433:${port}/guide`, `http://[::ffff:127.0.0.1]:${port}/guide`]) {
      const res = await guarded.api('/api/v1/ingest/url', { method: 'POST', key: guardedKey, json: { url, namespace: 'user_docs' } });
      expect(res.status, url).toBe(422);
      const { message } = await json(res);
      expect(message, url).toMatch(
        /^The URL could not be fetched: address not allowed: ".+" is, or resolves to, a loopback address; only public addresses are fetched unless KB_ALLOW_PRIVATE_URLS=true is set on the server$/,
      );
      // A name is reported as the caller wrote it, never with the address it resolved to.
      if (url.includes('localhost')) expect(message).not.toContain('127.0.0.1');
    }
    expect(site.hits()).toBe(before);
  });

  it('ingests an OpenAPI spec, one document per operation, re-embedding only what changed', async () => {
    const post = (body: string, type = 'application/json', query = '') =>
      open.api(`/api/v1/ingest/openapi${query}`, { method: 'POST', key, headers: { 'content-type': type }, body });
    const first = await post(JSON.stringify(SPEC));
    expect(first.status).toBe(200);
    expect(await json(first)).toEqual({ upserted: 2, unchanged: 0, total: 2 });
    expect(await json(await post(JSON.stringify(SPEC)))).toEqual({ upserted: 0, unchanged: 2, total: 2 });
    const changed = structuredClone(SPEC);
    changed.paths['/widgets'].get.summary = 'List every widget';
    expect(await json(await post(JSON.stringify(changed)))).toEqual({ upserted: 1, unchanged: 1, total: 2 });

    const yaml = `openapi: 3.1.0\ninfo: { title: Tiny, version: '1' }\npaths:\n  /ping:\n    get:\n      operationId: ping\n      responses: { '200': { description: pong } }\n`;
    expect(await json(await post(yaml, 'application/yaml', '?namespace=tech_docs'))).toEqual({ upserted: 1, unchanged: 0, total: 1 });
    const found = await json(await open.api('/api/v1/search', { method: 'POST', key, json: { query: 'create a widget', source: 'api_endpoints' } }));
    expect(found.results[0].documentTitle).toBe('Create a widget');
    // An operation's link is its externalDocs URL; one without externalDocs has none.
    expect(found.results[0]).toMatchObject({ slug: 'createWidget' });
    expect(found.results[0].url).toBeUndefined();
    const list = await json(await open.api('/api/v1/search', { method: 'POST', key, json: { query: 'list every widget', source: 'api_endpoints', topK: 1 } }));
    expect(list.results[0]).toMatchObject({ slug: 'listWidgets', url: 'https://docs.example.com/widgets/list' });
  });

  it('ingests a spec whose strings hold escaped NULs or unpaired surrogates, and refuses a raw NUL', async () => {
    const post = (body: string, type = 'application/json') =>
      open.api('/api/v1/ingest/openapi?namespace=tech_docs', { method: 'POST', key, headers: { 'content-type': type }, body });
    const json1 = JSON.stringify({
      openapi: '3.0.0',
      info: { title: 'Odd', version: '1' },
      paths: { '/odd': { get: { operationId: 'odd\u0000op', summary: 'Odd \ud800 summary', responses: { '200': { description: 'ok' } } } } },
    });
    const first = await post(json1);
    expect(first.status).toBe(200);
    expect(await json(first)).toEqual({ upserted: 1, unchanged: 0, total: 1 });
    expect(await json(await post(json1))).toEqual({ upserted: 0, unchanged: 1, total: 1 });
    const yaml = 'openapi: 3.0.0\ninfo: { title: Odd, version: "1" }\npaths:\n  /y:\n    get:\n      operationId: "y\\0op"\n      responses: { "200": { description: ok } }\n';
    expect(await json(await post(yaml, 'application/yaml'))).toEqual({ upserted: 1, unchanged: 0, total: 1 });
    const raw = await post('openapi: 3.0.0\u0000', 'application/yaml');
    expect(raw.status).toBe(400);
    expect((await json(raw)).message).toContain('"spec" contains a NUL character');
  });

  it('refuses other content types, invalid specs and unknown namespaces', async () => {
    const post = (body: string, type: string, query = '') =>
      open.api(`/api/v1/ingest/openapi${query}`, { method: 'POST', key, headers: { 'content-type': type }, body });
    expect((await post('openapi: 3.0.0', 'text/plain')).status).toBe(415);
    const invalid = await post('{"hello": "world"}', 'application/json');
    expect(invalid.status).toBe(400);
    expect((await json(invalid)).message).toMatch(/openapi|swagger/i);
    expect((await post('{ not json', 'application/json')).status).toBe(400);
    expect((await post(JSON.stringify(SPEC), 'application/json', '?namespace=elsewhere')).status).toBe(400);
  });

  describe('security', () => {
    securitySuite(() => open, [
      { procedure: 'ingest.url', json: { url: 'http://example.com', namespace: 'user_docs' } },
      { procedure: 'ingest.openapi', json: SPEC },
    ]);
  });
});
