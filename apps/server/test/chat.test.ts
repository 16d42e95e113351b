import { testStoreKinds } from '@kb/db/testing';
import type { SetupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { startMockServer } from './msw.ts';
import { securitySuite } from './security.ts';
import { readStream } from './sse.ts';

const kinds = await testStoreKinds();

const INSTALL = `# Install Hugo

Hugo is a single executable with no dependencies.

## Linux

Install the snap package with \`sudo snap install hugo\` on most Linux distributions.

## macOS

On macOS, install Hugo with Homebrew: \`brew install hugo\`.

## Windows

On Windows, install Hugo with winget:

\`\`\`sh
winget install Hugo.Hugo.Extended
\`\`\`
`;

const CACHING = `# Caching

## Cache lifetime

The \`cache.ttl\` setting is how many seconds a page stays cached. The default is 300 seconds.

## Purging

To drop every cached page at once, call the purge endpoint.
`;

describe.each(kinds)('POST /api/v1/chat and GET /api/v1/conversations, built-in answerer (%s)', (kind) => {
  let service: TestService;
  let mock: SetupServer;
  let admin: string;
  let installId: string;
  beforeAll(async () => {
    mock = startMockServer();
    service = await startTestService(kind);
    admin = (await service.createKey({ admin: true })).key;
    const ingest = (body: unknown) => service.api('/api/v1/ingest/md', { method: 'POST', key: admin, json: body }).then(json);
    installId = (await ingest({ title: 'Install Hugo', slug: 'install', namespace: 'user_docs', content: INSTALL })).documentId;
    await ingest({ title: 'Caching', slug: 'ops/caching', namespace: 'tech_docs', content: CACHING });
  });
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });

  const chat = (body: unknown, key = admin) => service.api('/api/v1/chat', { method: 'POST', key, json: body });

  it('streams meta, the answer in chunks and [DONE], with the stream headers', async () => {
    const res = await chat({ message: 'How do I install Hugo on Linux?' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const stream = await readStream(res);
    expect(stream.done).toBe(true);
    expect(stream.afterDone).toBe(0);
    const [meta, ...rest] = stream.events;
    expect(meta).toEqual({
      type: 'meta',
      conversationId: expect.any(String),
      messageId: expect.any(String),
      sources: [{ title: 'Install Hugo', documentId: installId, slug: 'install', namespace: 'user_docs', section: 'Linux' }],
    });
    expect(rest.length).toBeGreaterThan(1);
    expect(rest.every((e) => e.type === 'chunk')).toBe(true);
    expect(stream.text).toContain('sudo snap install hugo');
    // Cited inline with its number among the sources; no sources line repeats them.
    expect(stream.text).toMatch(/\[1\]/);
    expect(stream.text).not.toContain('Sources:');
  });

  it('answers whole with stream: false, and searches only the namespaces asked', async () => {
    const res = await chat({ message: 'How long does a page stay cached?', stream: false, source: 'tech_docs' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = await json(res);
    expect(body).toEqual({ conversationId: expect.any(String), messageId: expect.any(String), answer: expect.stringContaining('300 seconds'), sources: [expect.objectContaining({ title: 'Caching', slug: 'ops/caching', namespace: 'tech_docs' })], language: 'en' });
    const elsewhere = await json(await chat({ message: 'How long does a page stay cached?', stream: false, source: ['wiki', 'api_endpoints'] }));
    expect(elsewhere.sources).toEqual([]);
    expect(elsewhere.answer).toMatch(/could not find anything/);
  });

  it('answers whole over /trpc as chat.ask, with the same checks', async () => {
    const res = await service.api('/trpc/chat.ask', { method: 'POST', key: admin, json: { message: 'How long does a page stay cached?', source: 'tech_docs' } });
    expect(res.status).toBe(200);
    expect((await json(res)).result.data).toMatchObject({ answer: expect.stringContaining('300 seconds'), language: 'en', conversationId: expect.any(String) });
    expect((await service.api('/trpc/chat.ask', { method: 'POST', key: admin, json: { message: 'hi', conversationID: 'x' } })).status).toBe(400);
    expect((await service.api('/trpc/chat.ask', { method: 'POST', json: { message: 'hi' } })).status).toBe(401);
  });

  it('says plainly when nothing relevant was found', async () => {
    const body = await json(await chat({ message: 'What is the airspeed velocity of an unladen swallow?', stream: false }));
    expect(body.answer).toBe('I could not find anything in the knowledge base that answers this question.');
    expect(body.sources).toEqual([]);
  });

  it.each(['standard', 'smart'])('retrieves a follow-up with the earlier question (%s)', async (retrieval) => {
    const first = await json(await chat({ message: 'How do I install Hugo on macOS?', stream: false, retrieval }));
    expect(first.answer).toContain('brew install hugo');
    const followUp = await chat({ message: 'and on Windows?', conversationId: first.conversationId, retrieval });
    const stream = await readStream(followUp);
    expect(stream.events[0]).toMatchObject({ type: 'meta', conversationId: first.conversationId, sources: [expect.objectContaining({ documentId: installId })] });
    expect(stream.text).toContain('winget install Hugo.Hugo.Extended');
    expect(stream.text).not.toContain('brew install');
  });

  it('refuses bad input before streaming, naming unknown fields', async () => {
    const typo = await chat({ message: 'hi', conversationID: 'x' });
    expect(typo.status).toBe(400);
    const body = await json(typo);
    expect(body.code).toBe('BAD_REQUEST');
    expect(JSON.stringify(body.issues)).toContain('conversationID');
    const cases: Array<[unknown, string]> = [
      [{}, 'message'],
      [{ message: '   ' }, 'message'],
      [{ message: 5 }, 'message'],
      [{ message: 'x'.repeat(10_001) }, 'message'],
      [{ message: 'hi', source: 'nowhere' }, 'source'],
      [{ message: 'hi', language: 'english!' }, 'language'],
      [{ message: 'hi', language: 'english' }, 'language'],
      [{ message: 'hi', retrieval: 'clever' }, 'retrieval'],
      [{ message: 'hi', stream: 'false' }, 'stream'],
    ];
    for (const [input, field] of cases) {
      const res = await chat(input);
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/json');
      const error = await json(res);
      expect(error.issues.map((i: { path: string[] }) => String(i.path[0]))).toContain(field);
    }
    const malformed = await service.api('/api/v1/chat', { method: 'POST', key: admin, headers: { 'content-type': 'application/json' }, body: '{"message":' });
    expect(malformed.status).toBe(400);
    const text = await service.api('/api/v1/chat', { method: 'POST', key: admin, headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
  });

  it('answers 404 for an unknown conversation, and for another key’s', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await chat({ message: 'hi', conversationId: id });
      expect(res.status).toBe(404);
      expect(await json(res)).toMatchObject({ code: 'NOT_FOUND' });
    }
    const alice = (await service.createKey({ label: 'alice' })).key;
    const bob = (await service.createKey({ label: 'bob' })).key;
    const started = await json(await chat({ message: 'How do I purge the cache?', stream: false }, alice));
    expect((await chat({ message: 'and then?', conversationId: started.conversationId, stream: false }, bob)).status).toBe(404);
    expect((await chat({ message: 'and then?', conversationId: started.conversationId, stream: false }, alice)).status).toBe(200);
    // An admin key may continue any conversation.
    expect((await chat({ message: 'and then?', conversationId: started.conversationId, stream: false }, admin)).status).toBe(200);
  });

  it('applies the key’s rate limit to the stream route, with the usual headers', async () => {
    const { key } = await service.createKey({ rateLimitRpm: 1 });
    const first = await chat({ message: 'How do I purge the cache?' }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('1');
    await readStream(first);
    const second = await chat({ message: 'How do I purge the cache?' }, key);
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(second.headers.get('ratelimit-remaining')).toBe('0');
    expect(await json(second)).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
  });

  it('detects the language, takes a given one, and keeps the conversation’s for one unclear word', async () => {
    const ask = async (body: Record<string, unknown>) => json(await chat({ stream: false, ...body }));
    expect((await ask({ message: 'Comment installer Hugo sur macOS ?' })).language).toBe('fr');
    expect((await ask({ message: 'Wie installiere ich Hugo unter Linux?' })).language).toBe('de');
    expect((await ask({ message: 'Привет' })).language).toBe('ru');
    expect((await ask({ message: 'How do I install Hugo?', language: 'pt-br' })).language).toBe('pt-BR');
    const french = await ask({ message: 'Comment installer Hugo sur macOS avec brew ?' });
    expect(french.language).toBe('fr');
    expect(french.answer).toContain('brew install hugo');
    // The built-in answerer's own phrases are in the answer's language.
    expect((await ask({ message: 'Quelle est la vitesse d’une hirondelle africaine ?' })).answer).toMatch(/^Je n'ai rien trouvé dans la base de connaissances/);
    // "Merci" alone is not reliably French (nor "ok" anything): the conversation's language stays.
    expect((await ask({ message: 'Merci', conversationId: french.conversationId })).language).toBe('fr');
    expect((await ask({ message: 'ok' })).language).toBe('en');
  });

  it('stores messages in order under concurrent requests on one conversation', async () => {
    const { key } = await service.createKey({ label: 'concurrent' });
    const first = await json(await chat({ message: 'How do I purge cached pages?', stream: false }, key));
    const questions = ['and on Linux?', 'and on macOS?', 'and on Windows?', 'how long do pages stay cached?'];
    const answers = await Promise.all(questions.map((message) => chat({ message, conversationId: first.conversationId, stream: false }, key).then(json)));
    expect(answers.every((a) => a.conversationId === first.conversationId)).toBe(true);
    const list = await json(await service.api('/api/v1/conversations?limit=200', { key: admin }));
    const conversation = list.conversations.find((c: { id: string }) => c.id === first.conversationId);
    const messages: Array<{ role: string; content: string }> = conversation.messages;
    expect(messages).toHaveLength(10);
    // Each question is followed by its own answer.
    for (let i = 0; i < messages.length; i += 2) {
      expect(messages[i]!.role).toBe('user');
      expect(messages[i + 1]!.role).toBe('assistant');
      const q = questions.indexOf(messages[i]!.content);
      if (q >= 0) expect(messages[i + 1]!.content).toBe(answers[q].answer);
    }
    expect(new Set(messages.filter((m) => m.role === 'user').map((m) => m.content))).toEqual(new Set(['How do I purge cached pages?', ...questions]));
  });

  it('lists conversations newest first, filtered and paged, with their messages', async () => {
    const { key } = await service.createKey({ label: 'lister' });
    const wiki = await json(await chat({ message: 'How do I purge the cache?', source: 'wiki', stream: false, language: 'de' }, key));
    const both = await json(await chat({ message: 'Cache lifetime?', source: ['tech_docs', 'wiki'], stream: false, language: 'fr-CA' }, key));
    const list = (query: string) => service.api(`/api/v1/conversations${query}`, { key: admin });
    const bySource = await json(await list('?source=wiki&language=fr-CA'));
    expect(bySource.conversations.map((c: { id: string }) => c.id)).toEqual([both.conversationId]);
    expect(bySource.total).toBe(1);
    expect(bySource.conversations[0]).toEqual({
      id: both.conversationId,
      language: 'fr-CA',
      sources: ['tech_docs', 'wiki'],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      messages: [
        { id: expect.any(String), role: 'user', content: 'Cache lifetime?', sources: [], createdAt: expect.any(String) },
        { id: expect.any(String), role: 'assistant', content: both.answer, sources: both.sources, createdAt: expect.any(String) },
      ],
    });
    // Asked in the wiki namespace: both, newest first; asked in user_docs only: neither.
    const wikiIds = (await json(await list('?source=wiki&limit=200'))).conversations.map((c: { id: string }) => c.id);
    expect(wikiIds.indexOf(both.conversationId)).toBeLessThan(wikiIds.indexOf(wiki.conversationId));
    const userDocs = (await json(await list('?source=user_docs&limit=200'))).conversations.map((c: { id: string }) => c.id);
    expect(userDocs).not.toContain(both.conversationId);
    expect(userDocs).not.toContain(wiki.conversationId);
    expect((await json(await list('?language=fr'))).conversations.map((c: { id: string }) => c.id)).toContain(both.conversationId);
    const german = (await json(await list('?language=de&source=wiki'))).conversations.map((c: { id: string }) => c.id);
    expect(german).toContain(wiki.conversationId);
    expect(german).not.toContain(both.conversationId);
    for (const message of ['What is caching?', 'How do I install Hugo?']) await chat({ message, stream: false }, key);

    const all = await json(await list(''));
    expect(all.take).toBe(50);
    expect(all.skip).toBe(0);
    expect(all.total).toBeGreaterThanOrEqual(4);
    const created = all.conversations.map((c: { createdAt: string }) => c.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    const page = await json(await list('?limit=2&offset=1'));
    expect(page).toMatchObject({ take: 2, skip: 1, total: all.total });
    expect(page.conversations.map((c: { id: string }) => c.id)).toEqual(all.conversations.slice(1, 3).map((c: { id: string }) => c.id));
    expect((await json(await list('?limit=500'))).take).toBe(200);
    for (const bad of ['?limit=0', '?limit=-1', '?limit=abc', '?limit=1.5', '?offset=-1', '?offset=x', '?source=elsewhere', '?language=english!']) {
      const res = await list(bad);
      expect(res.status, bad).toBe(400);
    }
  });

  it('describes both routes in the OpenAPI document', async () => {
    const document = await json(await service.api('/api/v1/openapi.json'));
    const post = document.paths['/chat'].post;
    expect(Object.keys(post.responses['200'].content)).toEqual(['text/event-stream', 'application/json']);
    expect(document.components.schemas.ChatRequest.additionalProperties).toBe(false);
    expect(document.paths['/conversations'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['source', 'language', 'limit', 'offset', 'cursor']);
  });

  describe('security', () => {
    securitySuite(() => service, [
      { procedure: 'chat.ask', json: { message: 'hello' } },
      { procedure: 'chat.feedback', json: { messageId: '00000000-0000-4000-8000-000000000000', rating: 'up' } },
      { procedure: 'conversations.list' },
      { procedure: 'conversations.get', path: '/api/v1/conversations/00000000-0000-4000-8000-000000000000' },
      { procedure: 'feedback.list' },
    ]);
  });
});
