/**
 * The service's own origin (whose pages may use any publishable key, and are answered by CORS)
 * comes from KB_PUBLIC_URL, or from a Host that can only name this server (a loopback name, an
 * address): never from a name a DNS-rebinding page chooses. And no response is content-sniffed.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';

const SITE = 'https://docs.example.com';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with the headers given as they are (Host included), which fetch would not send. */
function send(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { host: url.hostname, port: url.port, method, path: `${url.pathname}${url.search}`, headers: { ...headers, ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }) } },
      (res) => {
        let received = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (received += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: received }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

async function publishableKey(service: TestService, admin: string): Promise<string> {
  const res = await service.api('/api/v1/keys', { method: 'POST', key: admin, json: { label: 'docs site', kind: 'publishable', namespaces: ['user_docs'], allowedOrigins: [SITE] } });
  expect(res.status).toBe(201);
  return (await json(res)).key as string;
}

describe('the own origin without KB_PUBLIC_URL', () => {
  let service: TestService;
  let key = '';
  let rebound = '';
  beforeAll(async () => {
    service = await startTestService('pglite');
    const admin = (await service.createKey({ admin: true })).key;
    key = await publishableKey(service, admin);
    // A page on a name the attacker controls, its DNS rebound to this server: Host and Origin are the attacker's.
    rebound = `evil.example:${service.port}`;
  });
  afterAll(() => service?.close());

  it('is not taken from a Host a rebound page chooses', async () => {
    const search = (headers: Record<string, string>) => send(service.url, 'POST', '/api/v1/search', { authorization: `Bearer ${key}`, ...headers }, { query: 'install' });
    const fromRebound = await search({ host: rebound, origin: `http://${rebound}` });
    expect(fromRebound.status, fromRebound.body).toBe(403);
    expect(JSON.parse(fromRebound.body).message).toMatch(/is not allowed to use this assistant/);
    // Nor when the browser marks the page same-origin (it is: the attacker's name, this server's address).
    expect((await search({ host: rebound, 'sec-fetch-site': 'same-origin' })).status).toBe(403);
    expect((await search({ host: rebound, origin: 'null', 'sec-fetch-site': 'same-origin' })).status).toBe(403);
    const config = await send(service.url, 'GET', `/api/v1/assistant/config?key=${key}`, { host: rebound, 'sec-fetch-site': 'same-origin' });
    expect(config.status, config.body).toBe(403);
    // CORS answers the rebound page no more than any other unlisted site.
    const preflight = await send(service.url, 'OPTIONS', '/api/v1/search', { host: rebound, origin: `http://${rebound}`, 'access-control-request-method': 'POST' });
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('is taken from a Host that can only name this server: a loopback name or an address', async () => {
    for (const host of [`127.0.0.1:${service.port}`, `localhost:${service.port}`]) {
      const res = await send(service.url, 'POST', '/api/v1/search', { host, authorization: `Bearer ${key}`, origin: `http://${host}` }, { query: 'install' });
      expect(res.status, `${host}: ${res.body}`).toBe(200);
    }
    // The key's own sites are allowed whatever the Host.
    expect((await send(service.url, 'POST', '/api/v1/search', { host: rebound, authorization: `Bearer ${key}`, origin: SITE }, { query: 'install' })).status).toBe(200);
  });
});

describe('the own origin with KB_PUBLIC_URL', () => {
  let service: TestService;
  let key = '';
  beforeAll(async () => {
    service = await startTestService('pglite', { env: { KB_PUBLIC_URL: 'https://kb.example.com/' } });
    const admin = (await service.createKey({ admin: true })).key;
    key = await publishableKey(service, admin);
  });
  afterAll(() => service?.close());

  it('is the configured one, whatever Host says', async () => {
    const search = (headers: Record<string, string>) => send(service.url, 'POST', '/api/v1/search', { authorization: `Bearer ${key}`, ...headers }, { query: 'install' });
    expect((await search({ host: 'kb.example.com', origin: 'https://kb.example.com' })).status).toBe(200);
    expect((await search({ host: 'evil.example', origin: 'https://kb.example.com' })).status).toBe(200);
    expect((await search({ host: 'kb.example.com', origin: 'null', 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    // Another origin, even this server's address as the client named it, is not the public one.
    expect((await search({ host: 'evil.example', origin: 'http://evil.example' })).status).toBe(403);
    expect((await search({ host: `127.0.0.1:${service.port}`, origin: service.url })).status).toBe(403);
  });
});

describe('X-Content-Type-Options', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('pglite');
  });
  afterAll(() => service?.close());

  it('is nosniff on every response: JSON, errors, tRPC, pages, files', async () => {
    const paths = ['/healthz', '/readyz', '/api/v1/openapi.json', '/api/v1/keys', '/api/v1/faq?q=cache', '/trpc/keys.list', '/trpc/x', '/mcp', '/', '/admin/', '/api/v1/docs', '/no/such/route'];
    for (const path of paths) {
      const res = await send(service.url, 'GET', path, { host: `127.0.0.1:${service.port}` });
      expect(res.headers['x-content-type-options'], `GET ${path} -> ${res.status}`).toBe('nosniff');
    }
    const post = await send(service.url, 'POST', '/api/v1/search', { host: `127.0.0.1:${service.port}` }, { query: 'x' });
    expect(post.status).toBe(401);
    expect(post.headers['x-content-type-options']).toBe('nosniff');
  });

  it('is nosniff on the answers to HTTP the server cannot parse', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(service.port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
      socket.write('NOT HTTP AT ALL\r\n\r\n');
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toMatch(/^X-Content-Type-Options: nosniff\r$/im);
  });
});
