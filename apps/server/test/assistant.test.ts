import { createLogger } from '@kb/core';
import { createTestDatabase, testStoreKinds } from '@kb/db/testing';
import { loadConfig } from '@kb/config';
import { http, HttpResponse } from 'msw';
import type { SetupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../src/app.ts';
import { json, startTestService, type TestService } from './helpers.ts';
import { startMockServer } from './msw.ts';
import { securitySuite } from './security.ts';
import { readStream } from './sse.ts';

const kinds = await testStoreKinds();

const SITE = 'https://docs.example.com';
const DOCS = {
  user: '# Install\n\nInstall the tool with `brew install tool` on macOS.\n',
  tech: '# Caching\n\nThe cache keeps a page for 300 seconds by default.\n',
  wiki: '# Internal runbook\n\nThe on-call rota lives in the internal wiki.\n',
};

/** A publishable key's fields, with the test's defaults. */
function publishable(fields: Record<string, unknown> = {}) {
  return { label: 'docs site', kind: 'publishable', namespaces: ['user_docs'], allowedOrigins: [SITE], ...fields };
}

describe.each(kinds)('publishable and scoped keys (%s)', (kind) => {
  let service: TestService;
  let admin: string;
  beforeAll(async () => {
    // Client addresses from X-Forwarded-For, so that tests can be several visitors.
    service = await startTestService(kind, { env: { KB_TRUST_PROXY: 'true', KB_FAQ_NAMESPACES: 'user_docs,tech_docs' } });
    admin = (await service.createKey({ admin: true })).key;
    const ingest = (title: string, namespace: string, content: string) =>
      service.api('/api/v1/ingest/md', { method: 'POST', key: admin, json: { title, namespace, content } }).then(json);
    await ingest('Install', 'user_docs', DOCS.user);
    await ingest('Caching', 'tech_docs', DOCS.tech);
    await ingest('Runbook', 'wiki', DOCS.wiki);
  });
  afterAll(() => service?.close());

  const create = async (fields: Record<string, unknown>) => {
    const res = await service.api('/api/v1/keys', { method: 'POST', key: admin, json: fields });
    return { status: res.status, body: await json(res) };
  };
  const page = (key: string, origin = SITE, visitor = '203.0.113.1') => ({ key, headers: { origin, 'x-forwarded-for': visitor } });

  it('creates publishable keys with their origins, namespaces and budgets, and lists them whole', async () => {
    const { status, body } = await create(publishable({ allowedOrigins: ['https://Docs.Example.com:443/', 'https://*.example.org', 'http://localhost:*'] }));
    expect(status).toBe(201);
    expect(body).toMatchObject({
      kind: 'publishable',
      key: expect.stringMatching(/^kb_pub_[0-9A-Za-z]{40}$/),
      admin: false,
      namespaces: ['user_docs'],
      allowedOrigins: ['https://docs.example.com', 'https://*.example.org', 'http://localhost:*'],
      visitorRateLimitRpm: 10,
      visitorRateLimitRpd: 100,
      dailyAnswerLimit: 1000,
    });
    const { keys } = await json(await service.api('/api/v1/keys', { key: admin }));
    const listed = keys.find((k: { id: string }) => k.id === body.id);
    expect(listed).toMatchObject({ kind: 'publishable', key: body.key, keyPrefix: body.key.slice(0, 13), allowedOrigins: body.allowedOrigins });
    // Secret keys never show their secret.
    for (const secret of keys.filter((k: { kind: string }) => k.kind === 'secret')) expect(secret.key).toBeUndefined();
  });

  it('refuses keys whose settings do not fit their kind, saying why', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [publishable({ allowedOrigins: undefined }), /needs allowedOrigins/],
      [publishable({ namespaces: undefined }), /needs namespaces/],
      [publishable({ admin: true }), /cannot be an admin key/],
      [publishable({ allowedOrigins: ['*'] }), /every site/],
      [publishable({ allowedOrigins: ['https://docs.example.com/help'] }), /has a path/],
      [publishable({ allowedOrigins: ['https://*.com'] }), /at least two labels/],
      [publishable({ allowedOrigins: ['ftp://docs.example.com'] }), /is not an origin/],
      [{ label: 'server', allowedOrigins: [SITE] }, /only publishable keys/],
      [{ label: 'server', dailyAnswerLimit: 5 }, /only publishable keys/],
      [{ label: 'root', admin: true, namespaces: ['wiki'] }, /admin key reaches every namespace/],
    ];
    for (const [fields, message] of cases) {
      const { status, body } = await create(fields);
      expect(status, JSON.stringify(fields)).toBe(400);
      expect(body.message, JSON.stringify(fields)).toMatch(message);
    }
  });

  it('changes a key with PATCH, and refuses to change a revoked one', async () => {
    const { body: key } = await create(publishable());
    const res = await service.api(`/api/v1/keys/${key.id}`, { method: 'PATCH', key: admin, json: { allowedOrigins: ['https://help.example.com'], visitorRateLimitRpm: null, label: 'renamed' } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ label: 'renamed', allowedOrigins: ['https://help.example.com'], visitorRateLimitRpm: null, visitorRateLimitRpd: 100 });
    // The old origin no longer works, the new one does (the change takes effect at once in this process).
    expect((await service.api('/api/v1/search', { method: 'POST', ...page(key.key), json: { query: 'install' } })).status).toBe(403);
    expect((await service.api('/api/v1/search', { method: 'POST', ...page(key.key, 'https://help.example.com'), json: { query: 'install' } })).status).toBe(200);
    expect((await service.api(`/api/v1/keys/${key.id}`, { method: 'PATCH', key: admin, json: { allowedOrigins: [] } })).status).toBe(400);
    await service.api(`/api/v1/keys/${key.id}`, { method: 'DELETE', key: admin });
    expect((await service.api(`/api/v1/keys/${key.id}`, { method: 'PATCH', key: admin, json: { label: 'x' } })).status).toBe(409);
    expect((await service.api('/api/v1/keys/00000000-0000-4000-8000-000000000000', { method: 'PATCH', key: admin, json: { label: 'x' } })).status).toBe(404);
  });

  it('lets a publishable key be used only from the pages it allows, naming the origin it refuses', async () => {
    const { body: key } = await create(publishable({ allowedOrigins: [SITE, 'https://*.example.org', 'http://localhost:*'] }));
    const search = (headers: Record<string, string>) => service.api('/api/v1/search', { method: 'POST', key: key.key, headers, json: { query: 'install' } });
    for (const origin of [SITE, 'https://a.example.org', 'https://a.b.example.org', 'http://localhost:5173', 'http://localhost']) {
      expect((await search({ origin })).status, origin).toBe(200);
    }
    for (const origin of ['https://evil.example', 'https://example.org', 'http://docs.example.com', 'https://docs.example.com:8443', 'null']) {
      const res = await search({ origin });
      expect(res.status, origin).toBe(403);
      expect((await json(res)).message, origin).toBe(`This site (${origin}) is not allowed to use this assistant: its origin is not among the key's allowed origins`);
    }
    const none = await search({});
    expect(none.status).toBe(403);
    expect((await json(none)).message).toMatch(/no Origin header/);
    // This server's own pages (the console's preview) may use any publishable key.
    expect((await search({ origin: service.url })).status).toBe(200);
    // Browsers send no Origin on a same-origin GET, and "null" from a page with Referrer-Policy:
    // no-referrer (the console's): Sec-Fetch-Site, which pages cannot set, says it is this server's page.
    expect((await search({ origin: 'null', 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    const config = (headers: Record<string, string>) => fetch(`${service.url}/api/v1/assistant/config?key=${key.key}`, { headers });
    expect((await config({ 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await config({})).status).toBe(403);
    for (const site of ['same-site', 'cross-site', 'none']) {
      expect((await search({ 'sec-fetch-site': site })).status, site).toBe(403);
      expect((await search({ origin: 'null', 'sec-fetch-site': site })).status, site).toBe(403);
    }
  });

  it('holds a publishable key to its namespaces and to what it may do', async () => {
    const { body: key } = await create(publishable({ namespaces: ['tech_docs'] }));
    const results = await json(await service.api('/api/v1/search', { method: 'POST', ...page(key.key), json: { query: 'cache seconds install runbook' } }));
    expect(results.results.map((r: { namespace: string }) => r.namespace)).toEqual(expect.arrayContaining(['tech_docs']));
    expect(new Set(results.results.map((r: { namespace: string }) => r.namespace))).toEqual(new Set(['tech_docs']));
    const outside = await service.api('/api/v1/search', { method: 'POST', ...page(key.key), json: { query: 'install', source: 'user_docs' } });
    expect(outside.status).toBe(403);
    expect((await json(outside)).message).toBe('This key may not use the namespace "user_docs": it is limited to tech_docs');
    const ingest = await service.api('/api/v1/ingest/md', { method: 'POST', ...page(key.key), json: { title: 't', content: 'c', namespace: 'tech_docs' } });
    expect(ingest.status).toBe(403);
    expect((await json(ingest)).message).toMatch(/not open to publishable keys/);
  });

  it('holds a scoped secret key to its namespaces for search, chat, the FAQ and ingestion, and leaves unscoped keys whole', async () => {
    const { body: scoped } = await create({ label: 'tech only', namespaces: ['tech_docs'] });
    expect(scoped).toMatchObject({ kind: 'secret', namespaces: ['tech_docs'] });
    const call = (path: string, body: unknown, method = 'POST') => service.api(path, { method, key: scoped.key, ...(method === 'POST' ? { json: body } : {}) });
    const forbidden = [
      call('/api/v1/search', { query: 'install', source: 'user_docs' }),
      call('/api/v1/search', { query: 'install', source: ['tech_docs', 'wiki'] }),
      call('/api/v1/chat', { message: 'How do I install it?', source: 'user_docs', stream: false }),
      call('/api/v1/ingest/md', { title: 't', content: 'c', namespace: 'user_docs' }),
      call('/api/v1/ingest/url', { url: 'https://example.com/', namespace: 'wiki' }),
      call('/api/v1/faq?q=install&source=user_docs', undefined, 'GET'),
      service.api('/api/v1/ingest/openapi?namespace=user_docs', { method: 'POST', key: scoped.key, headers: { 'content-type': 'application/yaml' }, body: 'openapi: 3.0.0\n' }),
    ];
    for (const res of await Promise.all(forbidden)) {
      expect(res.status, res.url).toBe(403);
      expect((await json(res)).message, res.url).toMatch(/^This key may not use the namespaces? "(user_docs|wiki)"/);
    }
    const search = await json(await call('/api/v1/search', { query: 'install cache runbook', topK: 10 }));
    expect(new Set(search.results.map((r: { namespace: string }) => r.namespace))).toEqual(new Set(['tech_docs']));
    const chat = await call('/api/v1/chat', { message: 'How long does the cache keep a page?', stream: false });
    expect(chat.status).toBe(200);
    expect((await json(chat)).sources.every((s: { namespace: string }) => s.namespace === 'tech_docs')).toBe(true);
    expect((await call('/api/v1/ingest/md', { title: 'More caching', content: '# More\n\nText.', namespace: 'tech_docs' })).status).toBe(200);
    // A key made before scopes existed (null) reads everything.
    const all = await json(await service.api('/api/v1/search', { method: 'POST', key: admin, json: { query: 'install cache runbook', topK: 10 } }));
    expect(new Set(all.results.map((r: { namespace: string }) => r.namespace))).toEqual(new Set(['user_docs', 'tech_docs', 'wiki']));
  });

  it('answers CORS preflights for the origins publishable keys allow, and never for others', async () => {
    await create(publishable({ allowedOrigins: ['https://preflight.example.com'] }));
    const preflight = (path: string, origin?: string) =>
      fetch(`${service.url}${path}`, {
        method: 'OPTIONS',
        headers: { ...(origin ? { origin } : {}), 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
    const allowed = await preflight('/api/v1/chat', 'https://preflight.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://preflight.example.com');
    expect(allowed.headers.get('access-control-allow-methods')).toBe('POST');
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/Authorization, Content-Type, X-Kb-Visitor/);
    expect(allowed.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    expect(allowed.headers.get('access-control-max-age')).toBe('600');
    expect(allowed.headers.get('vary')).toBe('Origin');
    for (const path of ['/api/v1/search', '/api/v1/faq', '/api/v1/chat/feedback', '/api/v1/conversations/x', '/api/v1/assistant/visitor']) {
      expect((await preflight(path, 'https://preflight.example.com')).status, path).toBe(204);
    }
    const foreign = await preflight('/api/v1/chat', 'https://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect((await json(foreign)).message).toMatch(/https:\/\/evil\.example/);
    const missing = await preflight('/api/v1/chat');
    expect(missing.status).toBe(204);
    expect(missing.headers.get('access-control-allow-origin')).toBeNull();
    // Routes pages do not call answer no preflight at all.
    expect((await preflight('/api/v1/keys', 'https://preflight.example.com')).status).toBe(404);
    expect((await preflight('/api/v1/ingest/md', 'https://preflight.example.com')).status).toBe(404);
  });

  it('lets allowed pages read answers and refusals, and tells a page the key does not allow that it is not allowed', async () => {
    const { body: key } = await create(publishable({ visitorRateLimitRpm: 0 }));
    const refused = await service.api('/api/v1/search', { method: 'POST', ...page(key.key), json: { query: 'install' } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(refused.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    const foreign = await service.api('/api/v1/search', { method: 'POST', ...page(key.key, 'https://evil.example'), json: { query: 'install' } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

    const config = (origin?: string) => fetch(`${service.url}/api/v1/assistant/config?key=${key.key}`, { headers: origin ? { origin } : {} });
    const ok = await config(SITE);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(await json(ok)).toEqual({ namespaces: ['user_docs'], botCheck: null, limits: { visitorRateLimitRpm: 0, visitorRateLimitRpd: 100 }, answerer: 'extractive' });
    const notAllowed = await config('https://evil.example');
    expect(notAllowed.status).toBe(403);
    // Readable by that page, so that it can say so.
    expect(notAllowed.headers.get('access-control-allow-origin')).toBe('https://evil.example');
    expect((await json(notAllowed)).message).toBe("This site (https://evil.example) is not allowed to use this assistant: its origin is not among the key's allowed origins");
    expect((await fetch(`${service.url}/api/v1/assistant/config?key=kb_pub_${'A'.repeat(40)}`, { headers: { origin: SITE } })).status).toBe(401);
    const secret = await fetch(`${service.url}/api/v1/assistant/config?key=${admin}`, { headers: { origin: SITE } });
    expect(secret.status).toBe(400);
    expect(await secret.text()).not.toContain(admin);
  });

  it("reads a document of the key's namespaces, counted against the visitor's budget", async () => {
    const { body: key } = await create(publishable({ visitorRateLimitRpm: 2 }));
    const found = await json(await service.api('/api/v1/search', { method: 'POST', ...page(key.key, SITE, '198.51.100.40'), json: { query: 'install' } }));
    const id = found.results[0].documentId as string;
    const read = (visitor: string) => service.api(`/api/v1/documents/${id}`, page(key.key, SITE, visitor));
    // The search above was the visitor's first question; one read fits, the next does not.
    expect((await read('198.51.100.40')).status).toBe(200);
    const over = await read('198.51.100.40');
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await read('198.51.100.41')).status).toBe(200);
  });

  it('limits each visitor of a publishable key per minute, and the key per day of answers, in words', async () => {
    const { body: key } = await create(publishable({ visitorRateLimitRpm: 2, dailyAnswerLimit: 3 }));
    const search = (visitor: string) => service.api('/api/v1/search', { method: 'POST', ...page(key.key, SITE, visitor), json: { query: 'install' } });
    expect((await search('198.51.100.1')).status).toBe(200);
    expect((await search('198.51.100.1')).status).toBe(200);
    const third = await search('198.51.100.1');
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await json(third)).message).toMatch(/^You have asked 2 questions in the last minute; try again in \d+ s$/);
    // Another visitor still may.
    expect((await search('198.51.100.2')).status).toBe(200);

    const chat = (visitor: string) => service.api('/api/v1/chat', { method: 'POST', ...page(key.key, SITE, visitor), json: { message: 'How do I install it?', stream: false } });
    expect((await chat('198.51.100.3')).status).toBe(200);
    expect((await chat('198.51.100.4')).status).toBe(200);
    expect((await chat('198.51.100.5')).status).toBe(200);
    const spent = await chat('198.51.100.6');
    expect(spent.status).toBe(429);
    expect((await json(spent)).message).toMatch(/^This assistant has answered all the questions it may today; try again in \d+ (s|min|h)$/);
  });

  it('streams a publishable key\'s answer with its message id, and lets only that key read the conversation and vote', async () => {
    const { body: key } = await create(publishable());
    const { body: other } = await create(publishable());
    const res = await service.api('/api/v1/chat', { method: 'POST', ...page(key.key), json: { message: 'How do I install the tool on macOS?' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SITE);
    const stream = await readStream(res);
    const meta = stream.events[0] as { conversationId: string; messageId: string; sources: Array<{ namespace: string }> };
    expect(meta.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.sources.every((s) => s.namespace === 'user_docs')).toBe(true);

    const vote = (as: string, body: Record<string, unknown>) => service.api('/api/v1/chat/feedback', { method: 'POST', ...page(as), json: body });
    const up = await vote(key.key, { messageId: meta.messageId, rating: 'up' });
    expect(up.status).toBe(200);
    expect(await json(up)).toMatchObject({ messageId: meta.messageId, rating: 'up', reasons: [], note: null });
    const down = await vote(key.key, { messageId: meta.messageId, rating: 'down', reasons: ['outdated', 'incomplete'], note: '  brew is gone  ' });
    expect(await json(down)).toMatchObject({ rating: 'down', reasons: ['outdated', 'incomplete'], note: 'brew is gone' });
    expect((await vote(other.key, { messageId: meta.messageId, rating: 'up' })).status).toBe(404);
    expect((await vote(admin, { messageId: meta.messageId, rating: 'up' })).status).toBe(404);
    expect((await vote(key.key, { messageId: '00000000-0000-4000-8000-000000000000', rating: 'up' })).status).toBe(404);
    expect((await vote(key.key, { messageId: meta.messageId, rating: 'up', reasons: ['incorrect'] })).status).toBe(400);
    expect((await vote(key.key, { messageId: meta.messageId, rating: 'down', note: 'x'.repeat(1001) })).status).toBe(400);

    const conversation = await service.api(`/api/v1/conversations/${meta.conversationId}`, page(key.key));
    expect(conversation.status).toBe(200);
    const read = await json(conversation);
    expect(read.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(read.messages[0].feedback).toBeUndefined();
    expect(read.messages[1]).toMatchObject({ id: meta.messageId, feedback: { rating: 'down', reasons: ['outdated', 'incomplete'], note: 'brew is gone' } });
    // The user message's id is no answer to vote on.
    expect((await vote(key.key, { messageId: read.messages[0].id, rating: 'up' })).status).toBe(404);
    expect((await service.api(`/api/v1/conversations/${meta.conversationId}`, page(other.key))).status).toBe(404);
    expect((await service.api(`/api/v1/conversations/${meta.conversationId}`, { key: admin })).status).toBe(200);

    // The follow-up keeps the conversation.
    const followUp = await json(
      await service.api('/api/v1/chat', { method: 'POST', ...page(key.key), json: { message: 'And on Linux?', conversationId: meta.conversationId, stream: false } }),
    );
    expect(followUp.conversationId).toBe(meta.conversationId);
    expect(followUp.messageId).not.toBe(meta.messageId);

    // Administrators see the vote with its question and answer, and the question among the gaps.
    const listed = await json(await service.api(`/api/v1/feedback?rating=down&reason=outdated&keyId=${key.id}&namespace=user_docs`, { key: admin }));
    expect(listed.total).toBe(1);
    expect(listed.feedback[0]).toMatchObject({
      messageId: meta.messageId,
      conversationId: meta.conversationId,
      keyId: key.id,
      keyLabel: 'docs site',
      question: 'How do I install the tool on macOS?',
      answer: stream.text,
      namespaces: ['user_docs'],
    });
    expect((await json(await service.api('/api/v1/feedback?rating=up', { key: admin }))).feedback.some((f: { messageId: string }) => f.messageId === meta.messageId)).toBe(false);
    expect((await json(await service.api(`/api/v1/feedback?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { key: admin }))).total).toBe(0);
    await service.services.queryLog.stop();
    const gaps = await json(await service.api('/api/v1/insights/gaps', { key: admin }));
    expect(gaps.gaps[0]).toMatchObject({ query: 'How do I install the tool on macOS?', thumbsDown: 1 });
  });

  it('limits the public FAQ to KB_FAQ_NAMESPACES, and a key sent to it to its namespaces', async () => {
    const wiki = await fetch(`${service.url}/api/v1/faq?q=runbook&source=wiki`);
    expect(wiki.status).toBe(403);
    expect((await json(wiki)).message).toBe('The public FAQ (KB_FAQ_NAMESPACES) may not use the namespace "wiki": it is limited to user_docs, tech_docs');
    const all = await fetch(`${service.url}/api/v1/faq?q=runbook%20rota&source=all`);
    expect(all.status).toBe(404);
    const { body: key } = await create(publishable({ namespaces: ['tech_docs'] }));
    const scoped = await service.api('/api/v1/faq?q=cache&source=all', page(key.key));
    expect(scoped.status).toBe(200);
    expect((await json(scoped)).sources.every((s: { namespace: string }) => s.namespace === 'tech_docs')).toBe(true);
    expect((await service.api('/api/v1/faq?q=install&source=user_docs', page(key.key))).status).toBe(403);
    expect((await service.api('/api/v1/faq?q=install', page(key.key, 'https://evil.example'))).status).toBe(403);
  });

  describe('security', () => {
    securitySuite(() => service, [{ procedure: 'assistant.visitor', json: { token: 'x' } }]);
  });
});

describe('the bot check', () => {
  const VERIFY = 'https://captcha.test/siteverify';
  let mock: SetupServer;
  let service: TestService;
  let admin: string;
  let key: string;
  let provider: 'up' | 'down' = 'up';
  const used = new Set<string>();
  beforeAll(async () => {
    mock = startMockServer();
    mock.use(
      http.post(VERIFY, async ({ request }) => {
        if (provider === 'down') return HttpResponse.error();
        const form = new URLSearchParams(await request.text());
        if (form.get('secret') !== 'provider-secret') return HttpResponse.json({ success: false, 'error-codes': ['invalid-input-secret'] });
        const token = form.get('response') ?? '';
        if (used.has(token)) return HttpResponse.json({ success: false, 'error-codes': ['timeout-or-duplicate'] });
        used.add(token);
        // The provider names the host of the page the challenge was solved on: `pass@host-…` tokens were solved on `host`.
        const hostname = /^pass@([^-]+)/.exec(token)?.[1] ?? new URL(SITE).hostname;
        return HttpResponse.json(token.startsWith('pass') ? { success: true, hostname } : { success: false, 'error-codes': ['invalid-input-response'] });
      }),
    );
    service = await startTestService('pglite', {
      // Client addresses from X-Forwarded-For, so that tests can be several visitors.
      env: { KB_BOT_CHECK_PROVIDER: 'turnstile', KB_BOT_CHECK_SITE_KEY: 'site-key', KB_BOT_CHECK_SECRET: 'provider-secret', KB_BOT_CHECK_VERIFY_URL: VERIFY, KB_TRUST_PROXY: 'true' },
    });
    admin = (await service.createKey({ admin: true })).key;
    await service.api('/api/v1/ingest/md', { method: 'POST', key: admin, json: { title: 'Install', namespace: 'user_docs', content: DOCS.user } });
    key = (await service.services.keys.create({ label: 'page', kind: 'publishable', namespaces: ['user_docs'], allowedOrigins: [SITE] })).key;
  });
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });

  const visitor = (token: string) => service.api('/api/v1/assistant/visitor', { method: 'POST', key, headers: { origin: SITE }, json: { token } });
  const search = (visitorToken?: string) =>
    service.api('/api/v1/search', { method: 'POST', key, headers: { origin: SITE, ...(visitorToken ? { 'x-kb-visitor': visitorToken } : {}) }, json: { query: 'install' } });

  it('names the provider and site key in the page configuration', async () => {
    const config = await json(await fetch(`${service.url}/api/v1/assistant/config?key=${key}`, { headers: { origin: SITE } }));
    expect(config.botCheck).toEqual({ provider: 'turnstile', siteKey: 'site-key' });
  });

  it('asks for a visitor token, gives one for a challenge the provider passes, once, and accepts it for that key only', async () => {
    const none = await search();
    expect(none.status).toBe(401);
    expect((await json(none)).message).toMatch(/bot check/);
    const admitted = await visitor('pass-1');
    expect(admitted.status).toBe(200);
    const { visitorToken, expiresAt } = await json(admitted);
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now() + 60 * 60_000);
    expect((await search(visitorToken)).status).toBe(200);
    expect((await search(`${visitorToken}x`)).status).toBe(401);
    // The same challenge token twice: the provider refuses the replay.
    const replay = await visitor('pass-1');
    expect(replay.status).toBe(403);
    expect((await json(replay)).message).toMatch(/timeout-or-duplicate/);
    const failed = await visitor('fail-1');
    expect(failed.status).toBe(403);
    // A token earned for one key is no good for another.
    const other = (await service.services.keys.create({ label: 'other', kind: 'publishable', namespaces: ['user_docs'], allowedOrigins: [SITE] })).key;
    expect((await service.api('/api/v1/search', { method: 'POST', key: other, headers: { origin: SITE, 'x-kb-visitor': visitorToken }, json: { query: 'install' } })).status).toBe(401);
    // Secret keys need none.
    expect((await service.api('/api/v1/search', { method: 'POST', key: admin, json: { query: 'install' } })).status).toBe(200);
  });

  it('binds a visitor token to the visitor it was given to: one solved check does not serve other addresses', async () => {
    const from = (address: string) => ({ origin: SITE, 'x-forwarded-for': address });
    const admitted = await service.api('/api/v1/assistant/visitor', { method: 'POST', key, headers: from('203.0.113.20'), json: { token: 'pass-bound' } });
    expect(admitted.status).toBe(200);
    const { visitorToken } = await json(admitted);
    const searchFrom = (address: string) =>
      service.api('/api/v1/search', { method: 'POST', key, headers: { ...from(address), 'x-kb-visitor': visitorToken }, json: { query: 'install' } });
    expect((await searchFrom('203.0.113.20')).status).toBe(200);
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => searchFrom(`198.51.100.${i + 1}`).then((r) => r.status)));
    expect(statuses.every((s) => s === 401)).toBe(true);
    const refused = await searchFrom('198.51.100.99');
    expect((await json(refused)).message).toMatch(/bot check/);
    // The budgets count an IPv6 visitor by its /64, and so does the token.
    const six = await service.api('/api/v1/assistant/visitor', { method: 'POST', key, headers: from('2001:db8:1:2::10'), json: { token: 'pass-six' } });
    const sixToken = (await json(six)).visitorToken as string;
    const sixSearch = (address: string) =>
      service.api('/api/v1/search', { method: 'POST', key, headers: { ...from(address), 'x-kb-visitor': sixToken }, json: { query: 'install' } });
    expect((await sixSearch('2001:db8:1:2::20')).status).toBe(200);
    expect((await sixSearch('2001:db8:1:3::10')).status).toBe(401);
  });

  it("refuses a challenge solved on a site the key does not allow (the provider's hostname)", async () => {
    const elsewhere = await visitor('pass@evil.example-1');
    expect(elsewhere.status).toBe(403);
    expect((await json(elsewhere)).message).toMatch(/solved on evil\.example, which is not among the key's allowed origins/);
    expect((await visitor('pass@docs.example.com-2')).status).toBe(200);
  });

  it('fails closed when the provider cannot be reached', async () => {
    provider = 'down';
    try {
      const res = await visitor('pass-2');
      expect(res.status).toBe(503);
      expect((await json(res)).message).toBe('The bot check could not be verified: Cloudflare Turnstile did not answer; try again in a moment');
    } finally {
      provider = 'up';
    }
  });
});

describe('the first start of a store', () => {
  it('makes one admin key for a store that never held one, and hands it over once', async () => {
    const database = await createTestDatabase('pglite');
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    const given: string[] = [];
    const logger = createLogger({ level: 'silent' });
    try {
      const first = await startService(config, { database: database.database, logger, onFirstAdminKey: (key) => given.push(key) });
      expect(given).toEqual([expect.stringMatching(/^kb_[0-9A-Za-z]{40}$/)]);
      const keys = await fetch(`${first.url}/api/v1/keys`, { headers: { authorization: `Bearer ${given[0]}` } });
      expect(keys.status).toBe(200);
      expect((await json(keys)).keys).toEqual([expect.objectContaining({ label: 'first admin key', admin: true })]);
      await first.stop(1_000);
      const again = await startService(config, { database: database.database, logger, onFirstAdminKey: (key) => given.push(key) });
      await again.stop(1_000);
      expect(given).toHaveLength(1);
    } finally {
      await database.drop();
    }
  });
});
