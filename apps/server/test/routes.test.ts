import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestContext } from '@kb/api';
import { AppError, isAppError } from '@kb/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendError, sendJson } from '../src/http-errors.ts';
import { findRoute, operationIndex, serveRoute, type Route, type RouteHost } from '../src/routes.ts';

describe('finding a route', () => {
  const route = (name: string, fields: Omit<Route, 'body' | 'handle'>): Route & { name: string } => ({ name, body: 'none', handle: () => undefined, ...fields });
  const routes = [
    route('health', { methods: ['GET'], path: '/healthz' }),
    route('spec', { methods: ['POST'], path: '/api/v1/ingest/openapi' }),
    route('rest', { path: '/api/v1', prefix: '/api/v1/' }),
    route('trpc', { prefix: '/trpc/' }),
  ];
  const found = (method: string, path: string) => (findRoute(routes, method, path) as { name: string } | undefined)?.name;

  it('matches exact paths and prefixes, the first match winning', () => {
    expect(found('GET', '/healthz')).toBe('health');
    expect(found('POST', '/api/v1/ingest/openapi')).toBe('spec');
    expect(found('GET', '/api/v1/ingest/openapi')).toBe('rest');
    expect(found('DELETE', '/api/v1/keys/x')).toBe('rest');
    expect(found('GET', '/api/v1')).toBe('rest');
    expect(found('GET', '/trpc/keys.list')).toBe('trpc');
  });

  it('answers HEAD wherever GET is answered, and nothing else it was not given', () => {
    expect(found('HEAD', '/healthz')).toBe('health');
    expect(found('POST', '/healthz')).toBeUndefined();
    expect(found('GET', '/api/v1x')).toBeUndefined();
    expect(found('GET', '/trpc')).toBeUndefined();
    expect(found('GET', '/healthz/')).toBeUndefined();
  });
});

describe('matching the operations of an OpenAPI document', () => {
  const operations = operationIndex(
    {
      '/keys': { get: { parameters: [{ name: 'label', in: 'query' }, { name: 'x-trace', in: 'header' }] }, post: {} },
      '/keys/{id}': { delete: { parameters: [{ name: 'id', in: 'path' }, { name: 'force', in: 'query' }] }, parameters: [{ name: 'shared', in: 'query' }] },
      '/a.b': { get: {} },
    },
    '/api/v1',
  );
  const matches = operations.matches;

  it('answers the methods and paths of its operations, a parameter taking one segment', () => {
    expect(matches('GET', '/api/v1/keys')).toBe(true);
    expect(matches('HEAD', '/api/v1/keys')).toBe(true);
    expect(matches('POST', '/api/v1/keys')).toBe(true);
    expect(matches('DELETE', '/api/v1/keys/k-1')).toBe(true);
    expect(matches('DELETE', '/api/v1/keys')).toBe(false);
    expect(matches('DELETE', '/api/v1/keys/a/b')).toBe(false);
    expect(matches('DELETE', '/api/v1/keys/')).toBe(false);
    expect(matches('PUT', '/api/v1/keys')).toBe(false);
    expect(matches('PARAMETERS', '/api/v1/keys/x')).toBe(false);
    expect(matches('GET', '/api/v1/aXb')).toBe(false);
    expect(matches('GET', '/api/v1/a.b')).toBe(true);
    expect(matches('GET', '/api/v2/keys')).toBe(false);
  });

  it('gives the query parameters each operation declares, its path item\'s included', () => {
    expect(operations.queryParameters('GET', '/api/v1/keys')).toEqual(['label']);
    expect(operations.queryParameters('HEAD', '/api/v1/keys')).toEqual(['label']);
    expect(operations.queryParameters('POST', '/api/v1/keys')).toEqual([]);
    expect(operations.queryParameters('DELETE', '/api/v1/keys/k')).toEqual(['shared', 'force']);
    expect(operations.queryParameters('GET', '/api/v1/nope')).toEqual([]);
  });
});

describe('serving a route', () => {
  let server: Server;
  let url: string;
  const seen: Array<{ body?: unknown; raw?: string; mediaType?: string; authorized?: string }> = [];
  const authorizations: string[] = [];
  const host: RouteHost = {
    maxJsonBytes: 100,
    context: (req) => ({ responseHeaders: {}, header: (name: string) => req.headers[name.toLowerCase()] }) as unknown as RequestContext,
    async authorize(context, level) {
      authorizations.push(level);
      context.responseHeaders['RateLimit-Limit'] = '5';
      if (context.header('authorization') !== 'Bearer good') throw new AppError('UNAUTHORIZED', 'no', { headers: { 'WWW-Authenticate': 'Bearer' } });
    },
  };
  const routes: Route[] = [
    { methods: ['POST'], path: '/json', body: 'json', handle: ({ req, res }) => (seen.push({ body: req.body }), sendJson(res, 200, {})) },
    {
      methods: ['POST'],
      path: '/raw',
      body: { raw: { maxBytes: 10, mediaTypes: new Set(['text/yaml']), refusal: (type) => `yaml, not ${type}` } },
      handle: ({ res, raw }) => (seen.push({ raw: raw!.body.toString(), mediaType: raw!.mediaType }), sendJson(res, 200, {})),
    },
    {
      methods: ['POST'],
      path: '/stream',
      body: 'json',
      auth: 'apiKey',
      handle: ({ req, res, context }) => (seen.push({ body: req.body, authorized: context!.header('authorization') }), sendJson(res, 200, {})),
    },
  ];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const parsed = new URL(req.url!, 'http://localhost');
      const route = findRoute(routes, req.method!, parsed.pathname)!;
      serveRoute(route, { req, res, url: parsed, pathname: parsed.pathname }, host).catch((error: unknown) => {
        if (isAppError(error)) sendError(res, error.code, error.message, error.headers);
        else sendError(res, 'INTERNAL_SERVER_ERROR', String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (path: string, body: string, headers: Record<string, string>) => fetch(`${url}${path}`, { method: 'POST', body, headers });

  it('parses a JSON body for its handler, and refuses other types, malformed JSON and large bodies', async () => {
    seen.length = 0;
    expect((await post('/json', '{"a":[1]}', { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    expect(seen).toEqual([{ body: { a: [1] } }]);
    const refused = await post('/json', 'a=1', { 'content-type': 'text/plain' });
    expect(refused.status).toBe(415);
    expect(await refused.json()).toEqual({ message: 'Unsupported content type "text/plain": send application/json', code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect((await post('/json', '{"a":', { 'content-type': 'application/json' })).status).toBe(400);
    expect((await post('/json', JSON.stringify({ a: 'x'.repeat(200) }), { 'content-type': 'application/json' })).status).toBe(413);
    expect(seen).toHaveLength(1);
  });

  it('hands a raw body and its media type over, refusing other types before reading', async () => {
    seen.length = 0;
    expect((await post('/raw', 'a: 1', { 'content-type': 'text/yaml' })).status).toBe(200);
    expect(seen).toEqual([{ raw: 'a: 1', mediaType: 'text/yaml' }]);
    const refused = await post('/raw', 'a: 1', { 'content-type': 'application/json' });
    expect(refused.status).toBe(415);
    expect(((await refused.json()) as { message: string }).message).toBe('yaml, not application/json');
    expect((await post('/raw', 'a: 12345678901', { 'content-type': 'text/yaml' })).status).toBe(413);
    expect(seen).toHaveLength(1);
  });

  it('checks access after the body, as procedures do, with the rate-limit headers on every answer', async () => {
    seen.length = 0;
    authorizations.length = 0;
    // A bad body is a 400 before credentials are looked at.
    expect((await post('/stream', '{', { 'content-type': 'application/json' })).status).toBe(400);
    expect(authorizations).toEqual([]);
    const denied = await post('/stream', '{"q":1}', { 'content-type': 'application/json' });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe('Bearer');
    expect(denied.headers.get('ratelimit-limit')).toBe('5');
    const allowed = await post('/stream', '{"q":1}', { 'content-type': 'application/json', authorization: 'Bearer good' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('ratelimit-limit')).toBe('5');
    expect(authorizations).toEqual(['apiKey', 'apiKey']);
    expect(seen).toEqual([{ body: { q: 1 }, authorized: 'Bearer good' }]);
  });
});
