import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { retryAfterSeconds } from '../src/errors.ts';
import { apiBaseUrl, createKbClient, KbError, KbNetworkError, type ChatEvent } from '../src/index.ts';

const BASE = 'http://kb.test';
const API = `${BASE}/api/v1`;
const server = setupServer();

beforeAll(() =>
  server.listen({
    // The loopback server below stands for the service where a real connection matters.
    onUnhandledRequest: (request, print) => (new URL(request.url).hostname === '127.0.0.1' ? undefined : print.error()),
  }),
);
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const kb = (options: Partial<Parameters<typeof createKbClient>[0]> = {}) => createKbClient({ baseUrl: BASE, apiKey: 'kb_test', ...options });

/** An SSE body written in the given pieces (split anywhere, even inside a character), then optionally left open. */
function sseBody(pieces: Array<string | Uint8Array>, options: { keepOpen?: boolean; onCancel?: () => void } = {}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece);
      if (!options.keepOpen) controller.close();
    },
    cancel() {
      options.onCancel?.();
    },
  });
}

const sse = (body: ReadableStream<Uint8Array>) => new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } });

const META = { type: 'meta', conversationId: 'c1', sources: [{ title: 'Menus', documentId: 'd1', slug: 'menus', namespace: 'user_docs' }] };

describe('requests', () => {
  it('send the key, the JSON body and the query to the /api/v1 paths', async () => {
    const seen: Array<{ method: string; url: string; auth: string | null; type: string | null; body: string }> = [];
    server.use(
      http.all(`${API}/*`, async ({ request }) => {
        seen.push({ method: request.method, url: request.url, auth: request.headers.get('authorization'), type: request.headers.get('content-type'), body: await request.text() });
        return HttpResponse.json({});
      }),
    );
    const client = kb();
    await client.search({ query: 'menus', topK: 2 });
    await client.context({ question: 'how do menus nest?', source: ['user_docs'], maxTokens: 800 });
    await client.keys.revoke('a b');
    await client.faq({ q: 'menus', source: 'all' });
    await client.conversations.list({ limit: 5, language: 'fr' });
    await client.documents.list({ namespace: 'user_docs', q: 'menus', limit: 2 });
    await client.documents.get('d/1');
    await client.documents.delete('d1');
    await client.documents.delete('d2', { folder: '/srv/docs' });
    await client.insights.gaps({ kind: 'chat', maxScore: 0.3 });
    await client.ingest.openapi('openapi: 3.0.3\n', { namespace: 'tech_docs' });
    await client.ingest.openapi({ openapi: '3.0.3' });
    expect(seen).toEqual([
      { method: 'POST', url: `${API}/search`, auth: 'Bearer kb_test', type: 'application/json', body: '{"query":"menus","topK":2}' },
      { method: 'POST', url: `${API}/context`, auth: 'Bearer kb_test', type: 'application/json', body: '{"question":"how do menus nest?","source":["user_docs"],"maxTokens":800}' },
      { method: 'DELETE', url: `${API}/keys/a%20b`, auth: 'Bearer kb_test', type: null, body: '' },
      { method: 'GET', url: `${API}/faq?q=menus&source=all`, auth: 'Bearer kb_test', type: null, body: '' },
      { method: 'GET', url: `${API}/conversations?limit=5&language=fr`, auth: 'Bearer kb_test', type: null, body: '' },
      { method: 'GET', url: `${API}/documents?namespace=user_docs&q=menus&limit=2`, auth: 'Bearer kb_test', type: null, body: '' },
      { method: 'GET', url: `${API}/documents/d%2F1`, auth: 'Bearer kb_test', type: null, body: '' },
      { method: 'DELETE', url: `${API}/documents/d1`, auth: 'Bearer kb_test', type: null, body: '' },
      { method: 'DELETE', url: `${API}/documents/d2?folder=%2Fsrv%2Fdocs`, auth: 'Bearer kb_test', type: null, body: '' },
      { method: 'GET', url: `${API}/insights/gaps?kind=chat&maxScore=0.3`, auth: 'Bearer kb_test', type: null, body: '' },
      { method: 'POST', url: `${API}/ingest/openapi?namespace=tech_docs`, auth: 'Bearer kb_test', type: 'application/yaml', body: 'openapi: 3.0.3\n' },
      { method: 'POST', url: `${API}/ingest/openapi`, auth: 'Bearer kb_test', type: 'application/json', body: '{"openapi":"3.0.3"}' },
    ]);
  });

  it('sends a file as the body with its type and fields in the query, from bytes, a Blob or a stream', async () => {
    const seen: Array<{ url: string; type: string | null; body: string }> = [];
    server.use(
      http.post(`${API}/ingest/file`, async ({ request }) => {
        const type = request.headers.get('content-type');
        if (type?.startsWith('multipart/form-data')) {
          const form = await request.formData();
          const files = form.getAll('file') as File[];
          seen.push({ url: request.url, type: 'multipart', body: `${form.get('namespace')}:${files.map((f) => `${f.name}=${f.type}`).join(',')}` });
          return HttpResponse.json(files.length === 1 ? { documentId: 'd1', skipped: false, format: 'pdf' } : { documents: [] });
        }
        seen.push({ url: request.url, type, body: await request.text() });
        return HttpResponse.json({ documentId: 'd1', skipped: false, format: 'pdf', pages: 1 });
      }),
    );
    const client = kb();
    const bytes = new TextEncoder().encode('%PDF-1.7 body');
    expect(await client.ingest.file(bytes, { namespace: 'user_docs', filename: 'guide.pdf', type: 'application/pdf', url: 'https://docs.example.com/guide.pdf' })).toEqual({
      documentId: 'd1',
      skipped: false,
      format: 'pdf',
      pages: 1,
    });
    await client.ingest.file(new Blob(['# Notes'], { type: 'text/markdown' }), { namespace: 'tech_docs', title: 'Notes' });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 4));
        controller.enqueue(bytes.subarray(4));
        controller.close();
      },
    });
    await client.ingest.file(stream, { namespace: 'user_docs', filename: 'streamed.pdf' });
    async function* chunks() {
      yield bytes;
    }
    await client.ingest.file(chunks(), { namespace: 'user_docs', filename: 'iterated.pdf' });
    expect(await client.ingest.files([{ content: bytes, filename: 'a.pdf', type: 'application/pdf' }], { namespace: 'user_docs' })).toEqual({
      documents: [{ documentId: 'd1', skipped: false, format: 'pdf' }],
    });
    expect(seen).toEqual([
      { url: `${API}/ingest/file?namespace=user_docs&filename=guide.pdf&url=https%3A%2F%2Fdocs.example.com%2Fguide.pdf`, type: 'application/pdf', body: '%PDF-1.7 body' },
      { url: `${API}/ingest/file?namespace=tech_docs&title=Notes`, type: 'text/markdown', body: '# Notes' },
      { url: `${API}/ingest/file?namespace=user_docs&filename=streamed.pdf`, type: 'application/octet-stream', body: '%PDF-1.7 body' },
      { url: `${API}/ingest/file?namespace=user_docs&filename=iterated.pdf`, type: 'application/octet-stream', body: '%PDF-1.7 body' },
      { url: `${API}/ingest/file`, type: 'multipart', body: 'user_docs:a.pdf=application/pdf' },
    ]);
  });

  it('signs in and out of an admin session, with the cookie policy asked for', async () => {
    const seen: Array<{ url: string; body: string; credentials: RequestCredentials; auth: string | null }> = [];
    const fetch = async (request: Request) => {
      seen.push({ url: request.url, body: await request.text(), credentials: request.credentials, auth: request.headers.get('authorization') });
      return Response.json(request.url.endsWith('/login') ? { ok: true, expiresAt: '2026-11-25T09:30:00.000Z' } : { ok: true });
    };
    const client = createKbClient({ baseUrl: BASE, fetch: fetch as typeof globalThis.fetch, credentials: 'include' });
    expect(await client.auth.login('secret')).toEqual({ ok: true, expiresAt: '2026-11-25T09:30:00.000Z' });
    expect(await client.auth.logout()).toEqual({ ok: true });
    expect(seen).toEqual([
      { url: `${API}/auth/login`, body: '{"password":"secret"}', credentials: 'include', auth: null },
      { url: `${API}/auth/logout`, body: '{}', credentials: 'include', auth: null },
    ]);
  });

  it('takes the address with or without /api/v1', () => {
    expect(apiBaseUrl('http://kb.test')).toBe(API);
    expect(apiBaseUrl('http://kb.test/')).toBe(API);
    expect(apiBaseUrl('http://kb.test/api/v1/')).toBe(API);
    expect(apiBaseUrl('https://example.com/kb')).toBe('https://example.com/kb/api/v1');
  });

  it('sends chat.send as stream: false and returns the JSON answer', async () => {
    let body: unknown;
    server.use(
      http.post(`${API}/chat`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ conversationId: 'c1', answer: 'Hi', sources: [], language: 'en' });
      }),
    );
    expect(await kb().chat.send({ message: 'hello' })).toEqual({ conversationId: 'c1', answer: 'Hi', sources: [], language: 'en' });
    expect(body).toEqual({ message: 'hello', stream: false });
  });
});

describe('errors', () => {
  it('throws every non-2xx answer as a KbError with its status, code, message and issues', async () => {
    const issues = [{ code: 'unrecognized_keys', keys: ['topk'], path: [], message: 'Unrecognized key: "topk"' }];
    server.use(
      http.post(`${API}/search`, () =>
        HttpResponse.json({ message: 'Input validation failed: unknown field "topk"', code: 'BAD_REQUEST', issues }, { status: 400, headers: { 'x-request-id': 'r1' } }),
      ),
    );
    const error = await kb().search({ query: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KbError);
    expect(error).toMatchObject({ name: 'KbError', status: 400, code: 'BAD_REQUEST', message: 'Input validation failed: unknown field "topk"', issues, requestId: 'r1', retryAfter: undefined });
  });

  it('gives the seconds to wait on a 429', async () => {
    server.use(http.get(`${API}/keys`, () => HttpResponse.json({ message: 'Rate limit exceeded', code: 'TOO_MANY_REQUESTS' }, { status: 429, headers: { 'retry-after': '12' } })));
    await expect(kb().keys.list()).rejects.toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS', retryAfter: 12, issues: [] });
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 10:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });

  it('describes an answer that is not the service JSON by its status', async () => {
    server.use(http.get(`${API}/ingest/jobs`, () => new HttpResponse('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' })));
    await expect(kb().ingest.jobs()).rejects.toMatchObject({ name: 'KbError', status: 502, code: 'HTTP_502', message: '<html>Bad gateway</html>' });
  });

  it('throws a KbNetworkError, with its cause, when the service cannot be reached', async () => {
    server.use(http.post(`${API}/search`, () => HttpResponse.error()));
    const error = await kb().search({ query: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KbNetworkError);
    expect(error).not.toBeInstanceOf(KbError);
    expect((error as KbNetworkError).cause).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^Could not reach the knowledge base at http:\/\/kb\.test/);
  });

  it('rejects a cancelled call with its AbortError, not a network error', async () => {
    server.use(http.post(`${API}/search`, () => new Promise<never>(() => undefined)));
    const controller = new AbortController();
    const pending = kb().search({ query: 'x' }, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('retries', () => {
  function refuseThenAnswer(refusals: Array<{ status: number; retryAfter?: string }>) {
    const bodies: string[] = [];
    server.use(
      http.post(`${API}/ingest/md`, async ({ request }) => {
        bodies.push(await request.text());
        const refusal = refusals[bodies.length - 1];
        if (!refusal) return HttpResponse.json({ documentId: 'd1', skipped: false });
        const code = refusal.status === 429 ? 'TOO_MANY_REQUESTS' : 'SERVICE_UNAVAILABLE';
        return HttpResponse.json({ message: 'not now', code }, { status: refusal.status, headers: refusal.retryAfter ? { 'retry-after': refusal.retryAfter } : {} });
      }),
    );
    return bodies;
  }
  const input = { title: 'T', content: '# T', namespace: 'user_docs' as const };

  it('are off by default', async () => {
    const bodies = refuseThenAnswer([{ status: 503 }]);
    await expect(kb().ingest.markdown(input)).rejects.toMatchObject({ status: 503 });
    expect(bodies).toHaveLength(1);
  });

  it('try 429 and 503 again, sending the same body, after the wait the answer asks for', async () => {
    const bodies = refuseThenAnswer([{ status: 429, retryAfter: '0' }, { status: 503 }]);
    expect(await kb({ retry: { baseDelayMs: 1 } }).ingest.markdown(input)).toEqual({ documentId: 'd1', skipped: false });
    expect(bodies).toEqual([JSON.stringify(input), JSON.stringify(input), JSON.stringify(input)]);
  });

  it('do not ask a chat question again after a 503: it was stored before the model failed', async () => {
    let asked = 0;
    server.use(
      http.post(`${API}/chat`, () => {
        asked++;
        return HttpResponse.json({ message: 'The language model is unavailable', code: 'SERVICE_UNAVAILABLE' }, { status: 503 });
      }),
    );
    await expect(kb({ retry: { baseDelayMs: 1 } }).chat.send({ message: 'hello' })).rejects.toMatchObject({ status: 503 });
    expect(asked).toBe(1);
  });

  it('give up after the number of retries, with the last refusal', async () => {
    const bodies = refuseThenAnswer([{ status: 503 }, { status: 503 }, { status: 429, retryAfter: '0' }, { status: 503 }]);
    await expect(kb({ retry: { retries: 2, baseDelayMs: 1 } }).ingest.markdown(input)).rejects.toMatchObject({ status: 429, retryAfter: 0 });
    expect(bodies).toHaveLength(3);
  });

  it('do not wait longer than maxDelayMs: a longer Retry-After is thrown at once', async () => {
    const bodies = refuseThenAnswer([{ status: 429, retryAfter: '3600' }]);
    await expect(kb({ retry: { maxDelayMs: 1_000 } }).ingest.markdown(input)).rejects.toMatchObject({ status: 429, retryAfter: 3600 });
    expect(bodies).toHaveLength(1);
  });

  it('never retry other statuses', async () => {
    const bodies = refuseThenAnswer([{ status: 500 }]);
    await expect(kb({ retry: true }).ingest.markdown(input)).rejects.toMatchObject({ status: 500 });
    expect(bodies).toHaveLength(1);
  });
});

describe('chat.stream', () => {
  const frames = [
    `data: ${JSON.stringify(META)}\n\n`,
    ': ping\n\n',
    `data: ${JSON.stringify({ type: 'chunk', text: 'Render with ' })}\n\n`,
    `data: ${JSON.stringify({ type: 'future', x: 1 })}\n\n`,
    `data: ${JSON.stringify({ type: 'chunk', text: 'site.Menus — café' })}\n\n`,
    'data: [DONE]\n\n',
  ];

  it('yields typed events in order, whatever the split of the bytes, and skips comments and unknown events', async () => {
    const bytes = new TextEncoder().encode(frames.join(''));
    // Every split point, including inside "data:", inside the blank line and inside "é".
    for (const size of [1, 2, 3, 7, 64]) {
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.slice(at, at + size));
      server.use(http.post(`${API}/chat`, () => sse(sseBody(pieces))));
      const events: ChatEvent[] = [];
      for await (const event of await kb().chat.stream({ message: 'menus?' })) events.push(event);
      expect(events, `pieces of ${size}`).toEqual([META, { type: 'chunk', text: 'Render with ' }, { type: 'chunk', text: 'site.Menus — café' }]);
    }
  });

  it('sends stream: true and asks for an event stream', async () => {
    let request: Request | undefined;
    server.use(
      http.post(`${API}/chat`, ({ request: received }) => {
        request = received.clone();
        return sse(sseBody(frames));
      }),
    );
    await (await kb().chat.stream({ message: 'menus?', source: ['user_docs'] })).collect();
    expect(await request!.json()).toEqual({ message: 'menus?', source: ['user_docs'], stream: true });
    expect(request!.headers.get('accept')).toBe('text/event-stream');
  });

  it('collects the whole answer and its sources', async () => {
    server.use(http.post(`${API}/chat`, () => sse(sseBody(frames))));
    expect(await (await kb().chat.stream({ message: 'menus?' })).collect()).toEqual({
      conversationId: 'c1',
      answer: 'Render with site.Menus — café',
      sources: META.sources,
    });
  });

  it('reports an error event, keeping the answer written before it', async () => {
    server.use(
      http.post(`${API}/chat`, () =>
        sse(sseBody([`data: ${JSON.stringify(META)}\n\ndata: {"type":"chunk","text":"Part"}\n\n`, 'data: {"type":"error","message":"The language model failed"}\n\ndata: [DONE]\n\n'])),
      ),
    );
    const stream = await kb().chat.stream({ message: 'menus?' });
    expect(await stream.collect()).toEqual({ conversationId: 'c1', answer: 'Part', sources: META.sources, error: 'The language model failed' });
  });

  it('throws a refusal before the stream as a KbError', async () => {
    server.use(http.post(`${API}/chat`, () => HttpResponse.json({ message: 'No conversation c9', code: 'NOT_FOUND' }, { status: 404 })));
    await expect(kb().chat.stream({ message: 'menus?', conversationId: 'c9' })).rejects.toMatchObject({ name: 'KbError', status: 404, code: 'NOT_FOUND' });
  });

  it('throws a KbNetworkError when the stream ends without [DONE]', async () => {
    server.use(http.post(`${API}/chat`, () => sse(sseBody([`data: ${JSON.stringify(META)}\n\n`]))));
    const events: ChatEvent[] = [];
    const reading = (async () => {
      for await (const event of await kb().chat.stream({ message: 'menus?' })) events.push(event);
    })();
    await expect(reading).rejects.toBeInstanceOf(KbNetworkError);
    expect(events).toEqual([META]);
  });

  /** A real server whose chat answer sends `frames` and stays open; `closed` tells when the client hung up. */
  async function openStream(frames: string[]): Promise<{ url: string; closed: Promise<void>; server: Server }> {
    let hungUp!: () => void;
    const closed = new Promise<void>((resolve) => (hungUp = resolve));
    const loopback = createServer((req, res: ServerResponse) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const frame of frames) res.write(frame);
      res.on('close', hungUp);
    });
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(loopback.address() as AddressInfo).port}`, closed, server: loopback };
  }

  it('is cancelled by its AbortSignal: iteration rejects with an AbortError and the connection is closed', async () => {
    const live = await openStream([`data: ${JSON.stringify(META)}\n\ndata: {"type":"chunk","text":"a"}\n\n`]);
    try {
      const controller = new AbortController();
      const stream = await createKbClient({ baseUrl: live.url }).chat.stream({ message: 'menus?' }, { signal: controller.signal });
      const seen: string[] = [];
      const reading = (async () => {
        for await (const event of stream) {
          seen.push(event.type);
          controller.abort();
        }
      })();
      await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
      // The events already received are not handed out after the cancel.
      expect(seen).toEqual(['meta']);
      await live.closed;
    } finally {
      live.server.close();
    }
  });

  it('is cancelled by abort(), and closes the connection when the caller stops reading early', async () => {
    const live = await openStream([`data: ${JSON.stringify(META)}\n\n`]);
    try {
      const client = createKbClient({ baseUrl: live.url });
      for await (const event of await client.chat.stream({ message: 'menus?' })) {
        expect(event.type).toBe('meta');
        break;
      }
      await live.closed;
      const stream = await client.chat.stream({ message: 'menus?' });
      stream.abort();
      await expect(stream.collect()).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      live.server.close();
    }
  });

  it('can be read once', async () => {
    server.use(http.post(`${API}/chat`, () => sse(sseBody(frames))));
    const stream = await kb().chat.stream({ message: 'menus?' });
    await stream.collect();
    await expect(stream.collect()).rejects.toThrow(/read once/);
  });
});
