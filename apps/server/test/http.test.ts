import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@kb/core';
import { startTestService, type TestService, json } from './helpers.ts';

function expectErrorBody(body: unknown, code: string) {
  expect(body).toEqual({ message: expect.any(String), code, ...((body as { issues?: unknown }).issues ? { issues: expect.any(Array) } : {}) });
  expect(JSON.stringify(body)).not.toMatch(/at .+\.(ts|js):\d+/);
}

describe('HTTP surface', () => {
  let service: TestService;
  let admin: string;
  beforeAll(async () => {
    service = await startTestService('pglite');
    admin = (await service.createKey({ admin: true })).key;
  });
  afterAll(() => service?.close());

  it('serves health and readiness', async () => {
    const health = await fetch(`${service.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await json(health)).toMatchObject({ status: 'ok' });
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await json(ready)).toEqual({ status: 'ready', checks: { database: 'ok' } });
  });

  it('publishes the OpenAPI document without credentials', async () => {
    const res = await fetch(`${service.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await json(res);
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/keys', '/keys/{id}', '/auth/login', '/auth/logout']));
    expect(doc.paths['/keys'].post.responses['201']).toBeDefined();
    expect(doc.paths['/keys'].post.responses['200']).toBeUndefined();
    // The public FAQ: its query parameters, and no security requirement.
    expect(doc.paths['/faq'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['q', 'source', 'lang']);
    expect(doc.paths['/faq'].get.security).toBeUndefined();
    const head = await fetch(`${service.url}/api/v1/openapi.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(JSON.stringify(doc)));
    expect(await head.text()).toBe('');
  });

  it('answers unknown routes with a JSON 404', async () => {
    for (const path of ['/api/v1/nope', '/nope', '/api/v2/keys', '/api/v1/keys/a/b', '/api/v1', '/api/v1/', '/api/v1?x=1']) {
      const res = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${admin}` } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      expectErrorBody(await json(res), 'NOT_FOUND');
    }
  });

  it('answers malformed JSON with 400', async () => {
    const res = await service.api('/api/v1/keys', { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: '{"label": ' });
    expect(res.status).toBe(400);
    expectErrorBody(await json(res), 'BAD_REQUEST');
  });

  it('refuses JSON nested too deeply with 400, on every route and before credentials', async () => {
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    for (const [path, key] of [['/api/v1/search', undefined], ['/api/v1/keys', admin], ['/api/v1/auth/login', undefined]] as const) {
      for (const body of [deep(65), deep(5000), `${'['.repeat(100_000)}${']'.repeat(100_000)}`]) {
        const res = await service.api(path, { method: 'POST', ...(key ? { key } : {}), headers: { 'content-type': 'application/json' }, body });
        expect(res.status, path).toBe(400);
        const error = await json(res);
        expectErrorBody(error, 'BAD_REQUEST');
        expect(error.message).toMatch(/nested more than 64 levels/);
      }
    }
    // The same limit holds for tRPC's input, a POST body or a GET's `input`, in tRPC's envelope.
    for (const [path, body] of [
      ['/trpc/keys.create', `{"label":"x","x":${deep(5000)}}`],
      ['/trpc/search', `{"query":"x","source":${'['.repeat(5000)}${']'.repeat(5000)}}`],
      ['/trpc/ingest.markdown', `{"title":"t","content":"x","namespace":"user_docs","metadata":${deep(100_000)}}`],
    ] as const) {
      const trpc = await fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body,
      });
      expect(trpc.status, path).toBe(400);
      expect(await json(trpc)).toEqual({ error: { message: 'JSON input nested more than 64 levels deep', code: -32600 } });
    }
    const query = await fetch(`${service.url}/trpc/keys.list?input=${encodeURIComponent(deep(100))}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(query.status).toBe(400);
    const shallow = await fetch(`${service.url}/trpc/keys.create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: `{"label":"x","x":${deep(60)}}`,
    });
    expect(shallow.status).toBe(201);
    // 64 levels is within the limit: the request reaches its procedure (and its own validation).
    const res = await service.api('/api/v1/keys', { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: `{"label":"x","x":${deep(63)}}` });
    expect(res.status).toBe(201);
  });

  it('refuses metadata nested more than 32 levels with 400 naming the field, on REST and tRPC alike', async () => {
    const body = (n: number) => `{"title":"deep","content":"x","namespace":"user_docs","metadata":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`;
    const rest = await service.api('/api/v1/ingest/md', { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: body(40) });
    expect(rest.status).toBe(400);
    const error = await json(rest);
    expectErrorBody(error, 'BAD_REQUEST');
    expect(error.issues).toEqual([expect.objectContaining({ path: ['metadata'], message: 'must not be nested more than 32 levels deep' })]);
    for (const [depth, message] of [
      [40, 'must not be nested more than 32 levels deep'],
      [5_000, 'JSON input nested more than 64 levels deep'],
    ] as const) {
      const trpc = await fetch(`${service.url}/trpc/ingest.markdown`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: body(depth),
      });
      expect(trpc.status, String(depth)).toBe(400);
      expect(JSON.stringify(await json(trpc))).toContain(message);
    }
    const ok = await service.api('/api/v1/ingest/md', { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: body(32) });
    expect(ok.status).toBe(200);
  });

  it('refuses text with a NUL character or an unpaired surrogate with 400 naming the field', async () => {
    const cases: Array<[string, string, string]> = [
      ['/api/v1/keys', '{"label":"a\\u0000b"}', '"label"'],
      ['/api/v1/keys', '{"label":"a\\ud800b"}', '"label"'],
      ['/api/v1/keys', '{"label":"a\\udc00"}', '"label"'],
      ['/api/v1/ingest/md', '{"title":"t","content":"x\\u0000","namespace":"user_docs"}', '"content"'],
      ['/api/v1/ingest/md', '{"title":"t","content":"x","namespace":"user_docs","metadata":{"k":["ok","\\ud83d"]}}', '"metadata.k[1]"'],
      ['/api/v1/ingest/md', '{"title":"t","content":"x","namespace":"user_docs","metadata":{"\\u0000":1}}', '"metadata.\u0000"'],
      ['/api/v1/search', '{"query":"a\\u0000b","mode":"hybrid"}', '"query"'],
    ];
    for (const [path, body, field] of cases) {
      const res = await service.api(path, { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body });
      expect(res.status, body).toBe(400);
      const error = await json(res);
      expectErrorBody(error, 'BAD_REQUEST');
      expect(error.message, body).toContain(`${field} contains a NUL character or an unpaired surrogate`);
    }
    // A surrogate pair (an emoji) is text.
    const ok = await service.api('/api/v1/keys', { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: '{"label":"\\ud83d\\ude00"}' });
    expect(ok.status).toBe(201);
    expect((await json(ok)).label).toBe('\u{1f600}');
    // The same check guards the tRPC routes.
    const trpc = await fetch(`${service.url}/trpc/keys.create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: '{"label":"a\\u0000b"}',
    });
    expect(trpc.status).toBe(400);
    expect(JSON.stringify(await json(trpc))).toContain('contains a NUL character');
  });

  it('accepts JSON with a charset and refuses other content types with 415', async () => {
    const ok = await service.api('/api/v1/keys', { method: 'POST', key: admin, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"label":"utf8"}' });
    expect(ok.status).toBe(201);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await service.api('/api/v1/keys', { method: 'POST', key: admin, headers: { 'content-type': type }, body: 'label=x' });
      expect(res.status, type).toBe(415);
      expectErrorBody(await json(res), 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('refuses bodies over 10 MB with 413, declared or streamed', async () => {
    const big = JSON.stringify({ label: 'x'.repeat(10 * 1024 * 1024 + 10) });
    const declared = await service.api('/api/v1/keys', { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: big });
    expect(declared.status).toBe(413);
    expectErrorBody(await json(declared), 'PAYLOAD_TOO_LARGE');
    const trpc = await fetch(`${service.url}/trpc/keys.create`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: big });
    expect(trpc.status).toBe(413);
    expect(await json(trpc)).toEqual({ error: { message: expect.stringContaining('larger than the limit'), code: -32013 } });

    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${service.url}/api/v1/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}`, 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 12) {
          sent++;
          if (!req.write(chunk)) return req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(streamed.status).toBe(413);
    expectErrorBody(JSON.parse(streamed.body), 'PAYLOAD_TOO_LARGE');
  });

  it('answers malformed HTTP with a JSON 400', async () => {
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(service.port, '127.0.0.1', () => socket.write('GARBAGE /\r\n\r\n'));
      let data = '';
      socket.on('data', (c) => (data += c));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(response).toMatch(/^HTTP\/1\.1 400/);
    expect(response).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
    expect(response).toContain('{"message":"Malformed HTTP request","code":"BAD_REQUEST"}');
  });

  it('answers an Expect header it cannot meet with a JSON 417', async () => {
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(service.port, '127.0.0.1', () =>
        socket.write('POST /api/v1/search HTTP/1.1\r\nHost: x\r\nExpect: 999-weird\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'),
      );
      let data = '';
      socket.on('data', (c) => (data += c));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(response).toMatch(/^HTTP\/1\.1 417/);
    expect(response).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
    expect(response).toContain('"code":"EXPECTATION_FAILED"');
  });

  it('takes tRPC batches of up to 10 calls', async () => {
    const batch = (n: number) =>
      fetch(`${service.url}/trpc/${Array(n).fill('search').join(',')}?batch=1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { query: `q${i}` }]))),
      });
    const ten = await batch(10);
    expect(ten.status).toBe(200);
    expect(await json(ten)).toHaveLength(10);
    const eleven = await batch(11);
    expect(eleven.status).toBe(400);
    expect(JSON.stringify(await json(eleven))).toContain('Batch call exceeds maximum size');
  });

  it('answers HEAD wherever it answers GET, without a body', async () => {
    const get = await service.api('/api/v1/keys', { key: admin });
    const head = await service.api('/api/v1/keys', { method: 'HEAD', key: admin });
    expect(head.status).toBe(get.status);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(await head.text()).toBe('');
    expect((await service.api('/api/v1/keys', { method: 'HEAD' })).status).toBe(401);
  });

  it('echoes a request id, or makes one', async () => {
    const given = await fetch(`${service.url}/healthz`, { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const made = await fetch(`${service.url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the same procedures over tRPC with the same access rules', async () => {
    const denied = await fetch(`${service.url}/trpc/keys.list`);
    expect(denied.status).toBe(401);
    const listed = await fetch(`${service.url}/trpc/keys.list`, { headers: { authorization: `Bearer ${admin}` } });
    expect(listed.status).toBe(200);
    const body = await json(listed);
    expect(Array.isArray(body.result.data.keys)).toBe(true);
  });
});

describe('a client that goes away mid-request', () => {
  const lines: Array<{ level: number; msg: string }> = [];
  let service: TestService;
  beforeAll(async () => {
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    service = await startTestService('pglite', { logger });
  });
  afterAll(() => service?.close());

  it('is logged as the client closing the connection, not as a server failure, and the server goes on', async () => {
    const { key } = await service.createKey({ admin: true });
    const url = new URL(service.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /api/v1/ingest/md HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"title":"half`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 200);
      });
      socket.on('error', reject);
    });
    await expect.poll(() => lines.some((l) => l.msg.startsWith('client closed the connection')), { timeout: 5_000 }).toBe(true);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  });
});
