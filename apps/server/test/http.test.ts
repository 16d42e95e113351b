import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@kb/core';
import { startTestService, type TestService, json } from './helpers.ts';

function expectErrorBody(body: unknown, code: string) {
  expect(body).toEqual({ message: expect.any(String), code, requestId: expect.any(String), ...((body as { issues?: unknown }).issues ? { issues: expect.any(Array) } : {}) });
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
    expect(doc.paths['/faq'].get.security).toEqual([]);
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
    // No operation is looked for in the body or the query string: the path and method decide.
    for (const [method, path] of [['POST', '/api/v1/nope?x=1'], ['POST', '/api/v1/keys/a/b?x=1'], ['PUT', '/api/v1/search?x=1'], ['DELETE', '/api/v1/search']]) {
      const res = await fetch(`${service.url}${path}`, { method, headers: { authorization: `Bearer ${admin}`, 'content-type': 'text/plain' }, body: 'not json' });
      expect(res.status, `${method} ${path}`).toBe(404);
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
      for (const body of [deep(65), deep(5000), `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`]) {
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
      expect(await json(trpc)).toEqual({ error: { message: 'JSON input nested more than 64 levels deep', code: -32600, data: { code: 'BAD_REQUEST', httpStatus: 400 }, requestId: expect.any(String) } });
    }
    const query = await fetch(`${service.url}/trpc/keys.list?input=${encodeURIComponent(deep(100))}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(query.status).toBe(400);
    // 64 levels is within the limit: the request reaches its procedure and its own validation,
    // which refuses the unknown field.
    const shallow = await fetch(`${service.url}/trpc/keys.create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: `{"label":"x","x":${deep(60)}}`,
    });
    expect(shallow.status).toBe(400);
    expect((await json(shallow)).error.message).toBe('Input validation failed: unknown field "x"');
    const res = await service.api('/api/v1/keys', { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: `{"label":"x","x":${deep(63)}}` });
    expect(res.status).toBe(400);
    expect((await json(res)).message).toBe('Input validation failed: unknown field "x"');
  });

  it('refuses unknown fields with 400 naming them, on every route, REST and tRPC alike', async () => {
    const { id } = await service.createKey({ label: 'to revoke' });
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/api/v1/search', { query: 'q', topk: 2 }, 'Input validation failed: unknown field "topk"'],
      ['POST', '/api/v1/keys', { label: 'x', admn: true }, 'Input validation failed: unknown field "admn"'],
      ['POST', '/api/v1/ingest/md', { title: 't', content: 'c', namespace: 'user_docs', tags: ['a'], Slug: 's' }, 'Input validation failed: unknown fields "tags", "Slug"'],
      ['POST', '/api/v1/ingest/url', { url: 'http://example.com', namespace: 'user_docs', depth: 2 }, 'Input validation failed: unknown field "depth"'],
      ['POST', '/api/v1/ingest/wiki', { spaceKey: 'ENG', namespace: 'wiki', since: 'yesterday' }, 'Input validation failed: unknown field "since"'],
      ['POST', '/api/v1/auth/login', { password: 'x', username: 'admin' }, 'Input validation failed: unknown field "username"'],
      ['POST', '/api/v1/auth/logout', { everywhere: true }, 'Input validation failed: unknown field "everywhere"'],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await service.api(path, { method, key: admin, json: body });
      expect(res.status, path).toBe(400);
      const error = await json(res);
      expectErrorBody(error, 'BAD_REQUEST');
      expect(error.message, path).toBe(message);
      expect(error.issues, path).toEqual([expect.objectContaining({ code: 'unrecognized_keys', path: [], message: expect.stringMatching(/^Unrecognized keys?: "/) })]);
    }
    // The example from the field: a misspelt option and a field of another route, with the query missing.
    const mixed = await service.api('/api/v1/search', { method: 'POST', key: admin, json: { topk: 2, namespace: 'user_docs' } });
    expect(mixed.status).toBe(400);
    const mixedError = await json(mixed);
    expect(mixedError.message).toMatch(/^Input validation failed: .*unknown fields "topk", "namespace"/);
    expect(mixedError.message).toMatch(/query: /);
    expect(mixedError.issues).toContainEqual({ code: 'unrecognized_keys', keys: ['topk', 'namespace'], path: [], message: 'Unrecognized keys: "topk", "namespace"' });

    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`${'k'.repeat(200)}${i}`, i]));
    const manyError = await json(await service.api('/api/v1/search', { method: 'POST', key: admin, json: { query: 'q', ...many } }));
    expect(manyError.message).toBe(`Input validation failed: unknown fields ${Array(10).fill(`"${'k'.repeat(99)}…"`).join(', ')}, … (12 in all)`);
    expect(manyError.issues[0].keys).toHaveLength(10);
    expect(manyError.issues[0].keysTotal).toBe(12);

    // tRPC: the same schemas, in tRPC's envelope, with the same message.
    const trpcCases: Array<[string, RequestInit]> = [
      ['/trpc/search', { method: 'POST', body: JSON.stringify({ query: 'q', topk: 2 }) }],
      ['/trpc/keys.create', { method: 'POST', body: JSON.stringify({ label: 'x', admn: true }) }],
      [`/trpc/keys.list?input=${encodeURIComponent(JSON.stringify({ limit: 5 }))}`, { method: 'GET' }],
    ];
    for (const [path, init] of trpcCases) {
      const res = await fetch(`${service.url}${path}`, { ...init, headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' } });
      expect(res.status, path).toBe(400);
      const { error } = await json(res);
      expect(error.code, path).toBe(-32600);
      expect(error.message, path).toMatch(/^Input validation failed: unknown field "(topk|admn|limit)"$/);
    }
    const listed = await fetch(`${service.url}/trpc/keys.list`, { headers: { authorization: `Bearer ${admin}` } });
    expect(listed.status).toBe(200);

    // Path parameters the REST adapter adds are not unknown fields.
    const revoked = await service.api(`/api/v1/keys/${id}`, { method: 'DELETE', key: admin });
    expect(revoked.status).toBe(200);
    expect(await json(revoked)).toEqual({ revoked: true, id });
  });

  it('refuses query parameters a route does not take with 400 naming them', async () => {
    const { id } = await service.createKey({ label: 'kept' });
    const cases: Array<[string, string, string]> = [
      ['GET', '/api/v1/keys?limit=5', 'Unknown query parameter "limit": it takes none'],
      ['GET', '/api/v1/ingest/jobs?status=failed&limit=2', 'Unknown query parameters "status", "limit": it takes none'],
      ['GET', '/api/v1/faq?q=menus&sort=new', 'Unknown query parameter "sort": it takes only "q", "source", "lang"'],
      ['DELETE', `/api/v1/keys/${id}?force=true`, 'Unknown query parameter "force": it takes none'],
      ['DELETE', `/api/v1/documents/${id}?force=true`, 'Unknown query parameter "force": it takes only "folder"'],
      ['POST', '/api/v1/search?topK=2', 'Unknown query parameter "topK": its input goes in the JSON body'],
      ['POST', '/api/v1/ingest/openapi?namespace=tech_docs&format=yaml', 'Unknown query parameter "format": it takes only "namespace"'],
    ];
    for (const [method, path, message] of cases) {
      const res = await service.api(path, { method, key: admin, ...(method === 'POST' ? { json: { query: 'q' } } : {}) });
      expect(res.status, path).toBe(400);
      const error = await json(res);
      expectErrorBody(error, 'BAD_REQUEST');
      expect(error.message, path).toBe(message);
    }
    expect((await service.api('/api/v1/keys?limit=5', { method: 'HEAD', key: admin })).status).toBe(400);
    // The key was not revoked by the refused request; without the parameter it is.
    expect((await service.api(`/api/v1/keys/${id}`, { method: 'DELETE', key: admin })).status).toBe(200);
    expect((await service.api('/api/v1/keys', { key: admin })).status).toBe(200);
  });

  it('refuses query parameters named like object properties with 400 on every operation, before credentials', async () => {
    const doc = await json(await fetch(`${service.url}/api/v1/openapi.json`));
    const reads = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .filter(([path, item]) => 'get' in item && !['/openapi.json', '/docs'].includes(path))
      .map(([path]) => `/api/v1${path.replace(/\{[^}]+\}/g, 'x')}`);
    expect(reads).toEqual(expect.arrayContaining(['/api/v1/keys', '/api/v1/faq', '/api/v1/documents', '/api/v1/conversations']));
    for (const path of reads) {
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
        for (const method of ['GET', 'HEAD']) {
          const res = await fetch(`${service.url}${path}?q=menus&${name}=x`, { method });
          expect(res.status, `${method} ${path}?${name}`).toBe(400);
          if (method === 'GET') expect((await json(res)).message, path).toMatch(new RegExp(`^Unknown query parameters? .*"${name}"`));
        }
      }
    }
    // Also with a key, and as a list.
    const keyed = await service.api('/api/v1/keys?__proto__=x&__proto__=y', { key: admin });
    expect(keyed.status).toBe(400);
    expect((await json(keyed)).message).toBe('Unknown query parameter "__proto__": it takes none');
    // tRPC reads only its `input` parameter.
    expect((await fetch(`${service.url}/trpc/keys.list?__proto__=x&constructor=1`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(200);
  });

  it('refuses a JSON body that is not an object with one short 400, whatever its size', async () => {
    for (const path of ['/api/v1/auth/login', '/api/v1/search', '/api/v1/keys', '/api/v1/chat', '/api/v1/ingest/md']) {
      for (const [body, kind] of [['[1,2,3]', 'an array'], ['"abc"', 'a string'], ['42', 'a number'], ['null', 'null'], ['true', 'a boolean']]) {
        const res = await service.api(path, { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body });
        expect(res.status, `${path} ${body}`).toBe(400);
        expect(await json(res), `${path} ${body}`).toEqual({ message: `Expected a JSON object as the body, not ${kind}`, code: 'BAD_REQUEST', requestId: expect.any(String) });
      }
    }
    // Nine megabytes of array, without a key, on the login route.
    const big = `[${'0,'.repeat(4_500_000)}0]`;
    const res = await service.api('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(400);
    expect((await res.text()).length).toBeLessThan(200);
  });

  it('answers invalid input in a bounded body, whatever the size of the input, on REST and tRPC alike', async () => {
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 0]));
    for (const [path, key] of [['/api/v1/auth/login', undefined], ['/api/v1/search', admin]] as const) {
      const res = await service.api(path, { method: 'POST', ...(key ? { key } : {}), json: fields(9_000) });
      expect(res.status, path).toBe(400);
      const text = await res.text();
      expect(text.length, path).toBeLessThan(4096);
      const error = JSON.parse(text);
      expect(error.message, path).toMatch(/unknown fields "f0", "f1", .*, … \(9000 in all\)/);
      expect(error.issues.find((issue: { code: string }) => issue.code === 'unrecognized_keys')).toMatchObject({ keys: expect.any(Array), keysTotal: 9_000 });
      // Past 10,000 members one object is refused before it is parsed (V8 takes seconds to build one of a million).
      const wide = await service.api(path, { method: 'POST', ...(key ? { key } : {}), json: fields(700_000) });
      expect(wide.status, path).toBe(400);
      expect(await json(wide)).toEqual({ message: 'JSON body holding an object of more than 10000 members', code: 'BAD_REQUEST', requestId: expect.any(String) });
    }
    const trpc = await fetch(`${service.url}/trpc/search`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(fields(9_000)) });
    expect(trpc.status).toBe(400);
    expect((await trpc.text()).length).toBeLessThan(4096);
    const trpcWide = await fetch(`${service.url}/trpc/search`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(fields(10_001)) });
    expect(await json(trpcWide)).toEqual({ error: { message: 'JSON input holding an object of more than 10000 members', code: -32600, data: { code: 'BAD_REQUEST', httpStatus: 400 }, requestId: expect.any(String) } });

    // A ten-megabyte value is quoted as an excerpt, never whole.
    const huge = 'x'.repeat(9 * 1024 * 1024);
    for (const [path, body] of [
      ['/api/v1/ingest/md', { title: 't', content: 'c', namespace: huge }],
      ['/api/v1/search', { query: huge }],
      ['/api/v1/keys', { label: huge }],
    ] as const) {
      const res = await service.api(path, { method: 'POST', key: admin, json: body });
      expect(res.status, path).toBe(400);
      const text = await res.text();
      expect(text.length, path).toBeLessThan(2048);
    }
    const faq = await fetch(`${service.url}/api/v1/faq?q=menus&source=${'y'.repeat(6000)}`);
    expect(faq.status).toBe(400);
    const faqError = await json(faq);
    expect(faqError.message).toMatch(/source: must be one of user_docs, tech_docs, api_endpoints, wiki, all \(got "y{59}…"\)$/);
  });

  it('counts string limits in characters, as the document\'s maxLength does, not in UTF-16 units', async () => {
    const doc = await json(await fetch(`${service.url}/api/v1/openapi.json`));
    expect(doc.paths['/keys'].post.requestBody.content['application/json'].schema.properties.label.maxLength).toBe(200);
    const emoji = '\u{1F600}';
    const fits = await service.api('/api/v1/keys', { method: 'POST', key: admin, json: { label: emoji.repeat(200) } });
    expect(fits.status).toBe(201);
    expect((await json(fits)).label).toBe(emoji.repeat(200));
    const over = await service.api('/api/v1/keys', { method: 'POST', key: admin, json: { label: emoji.repeat(201) } });
    expect(over.status).toBe(400);
    expect((await json(over)).message).toBe('Input validation failed: label: Too big: expected string to have <=200 characters');
    const search = await service.api('/api/v1/search', { method: 'POST', key: admin, json: { query: `${emoji.repeat(9_999)}a` } });
    expect(search.status).toBe(200);
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
    expect(await json(trpc)).toEqual({ error: { message: expect.stringContaining('larger than the limit'), code: -32013, data: { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 }, requestId: expect.any(String) } });

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

  it("lets Node's fetch read the 413 of a 60 MB body, on REST, tRPC and the spec route, every time", async () => {
    // The client runs in its own process, as a real one does: whether it reads the answer, or
    // fails with EPIPE, depends on the timing of its writes against the server's close.
    const client = `
      const [url, key] = process.argv.slice(1);
      const body = Buffer.alloc(60 * 1024 * 1024, 'a');
      const results = [];
      for (const path of ['/api/v1/ingest/md', '/trpc/ingest.markdown', '/api/v1/ingest/openapi']) {
        for (let i = 0; i < 5; i++) {
          try {
            const res = await fetch(url + path, { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body });
            results.push({ path, status: res.status, body: await res.json() });
          } catch (error) {
            results.push({ path, error: error.message + ': ' + (error.cause?.code ?? error.cause?.message ?? '') });
          }
        }
      }
      console.log(JSON.stringify(results));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', client, service.url, admin], { maxBuffer: 1024 * 1024 });
    const results = JSON.parse(stdout) as Array<{ path: string; status?: number; body?: unknown; error?: string }>;
    expect(results).toHaveLength(15);
    for (const result of results) {
      const limit = result.path === '/api/v1/ingest/openapi' ? 25 * 1024 * 1024 : 10 * 1024 * 1024;
      const message = `Request body is larger than the limit of ${limit} bytes`;
      expect(result, result.path).toEqual({
        path: result.path,
        status: 413,
        body: result.path.startsWith('/trpc/')
          ? { error: { message, code: -32013, data: { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 }, requestId: expect.any(String) } }
          : { message, code: 'PAYLOAD_TOO_LARGE', requestId: expect.any(String) },
      });
    }
  }, 120_000);

  it('answers 413 at once to a body too large to wait for: declared past the bound, or announced with Expect: 100-continue', async () => {
    const exchange = (head: string, waitForClose = true) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(service.port, '127.0.0.1', () => socket.write(head));
        let data = '';
        socket.on('data', (chunk) => {
          data += chunk;
          if (!waitForClose && data.includes('\r\n\r\n')) socket.destroy();
        });
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
    const head = (path: string, length: number, extra = '') =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;
    // No body is sent: the answer comes without the server waiting for one, and the connection closes.
    for (const [path, length, extra] of [
      ['/api/v1/ingest/md', 10 * 1024 * 1024 + 64 * 1024 * 1024 + 1, ''],
      ['/api/v1/ingest/md', 10 * 1024 * 1024 + 1, 'Expect: 100-continue\r\n'],
      ['/trpc/ingest.markdown', 10 * 1024 * 1024 + 1, 'Expect: 100-continue\r\n'],
      ['/api/v1/ingest/openapi', 25 * 1024 * 1024 + 1, 'Expect: 100-continue\r\n'],
    ] as const) {
      const response = await exchange(head(path, length, extra));
      expect(response, path).toMatch(/^HTTP\/1\.1 413 /);
      expect(response, path).not.toContain('100 Continue');
      expect(response, path).toMatch(/\r\nConnection: close\r\n/i);
      expect(response, path).toContain('larger than the limit');
    }
    // Within the limit, the client is told to go on.
    const within = await exchange(head('/api/v1/ingest/openapi', 11 * 1024 * 1024, 'Expect: 100-continue\r\n'), false);
    expect(within).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
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
    expect(response).toMatch(/\{"message":"Malformed HTTP request","code":"BAD_REQUEST","requestId":"([\w-]+)"\}/);
    // The body names the request id the response carries.
    expect(response).toContain(`X-Request-Id: ${/"requestId":"([\w-]+)"/.exec(response)![1]}`);
  });

  it('answers an Expect header it cannot meet with a JSON 400 (a status every operation declares)', async () => {
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(service.port, '127.0.0.1', () =>
        socket.write('POST /api/v1/search HTTP/1.1\r\nHost: x\r\nExpect: 999-weird\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'),
      );
      let data = '';
      socket.on('data', (c) => (data += c));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(response).toMatch(/^HTTP\/1\.1 400/);
    expect(response).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
    expect(response).toMatch(/\{"message":"Unsupported Expect header \\"999-weird\\": only 100-continue is supported","code":"BAD_REQUEST","requestId":"[\w.:-]+"\}/);
  });

  it('answers headers over the limit with a JSON 400', async () => {
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(service.port, '127.0.0.1', () => socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`));
      let data = '';
      socket.on('data', (c) => (data += c));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(response).toMatch(/^HTTP\/1\.1 400/);
    expect(response).toMatch(/"message":"Request headers too large: at most 65536 bytes","code":"BAD_REQUEST"/);
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

  it('logs a failed request with its request id', async () => {
    const { key } = await service.createKey({ admin: true });
    const keys = service.services.keys;
    const list = keys.list.bind(keys);
    keys.list = () => Promise.reject(new Error('the store went away'));
    try {
      for (const [path, init] of [
        ['/api/v1/keys', {}],
        ['/trpc/keys.list', {}],
      ] as const) {
        const res = await fetch(`${service.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'x-request-id': `failing-${path.length}` } });
        expect(res.status, path).toBe(500);
        await expect.poll(() => lines.some((l) => (l as { reqId?: string }).reqId === `failing-${path.length}` && l.level >= 50), { timeout: 5_000 }).toBe(true);
      }
    } finally {
      keys.list = list;
    }
  });
});
