import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kbChatResponse, kbChatStream, kbTools, lastUserText, type KbUIMessage } from '../src/ai.ts';
import { createKbClient } from '../src/index.ts';

const BASE = 'http://kb.test';
const API = `${BASE}/api/v1`;
const server = setupServer();
// A real loopback server stands for the service where a real connection matters (abort).
beforeAll(() => server.listen({ onUnhandledRequest: (request, print) => (new URL(request.url).hostname === '127.0.0.1' ? undefined : print.error()) }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const kb = () => createKbClient({ baseUrl: BASE, apiKey: 'kb_test' });
const encoder = new TextEncoder();
const frame = (value: unknown) => encoder.encode(`data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`);

const META = {
  type: 'meta',
  conversationId: 'c1',
  messageId: 'm1',
  sources: [
    { title: 'Menus', documentId: 'd1', slug: 'menus', namespace: 'user_docs', url: 'https://docs.example.com/menus', anchor: 'nested-menus' },
    { title: 'Internal notes', documentId: 'd2', slug: 'notes', namespace: 'wiki' },
  ],
};

/** An SSE answer from the given frames; with `hold`, left open after them (the answer still being written). */
function answer(frames: Uint8Array[], options: { hold?: boolean; cancelled?: () => void } = {}) {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const f of frames) controller.enqueue(f);
      if (!options.hold) controller.close();
    },
    cancel: () => options.cancelled?.(),
  });
  return new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } });
}

/** The last state of the assistant message the stream builds, as useChat would show it. */
async function lastMessage(stream: ReadableStream<UIMessageChunk>, errors: unknown[] = []): Promise<KbUIMessage | undefined> {
  let last: KbUIMessage | undefined;
  for await (const message of readUIMessageStream<KbUIMessage>({ stream, onError: (e) => errors.push(e) })) last = message;
  return last;
}

describe('kbChatStream: a kb answer as an AI SDK UI message stream', () => {
  it('gives the text in order, the sources as source parts and the ids as metadata', async () => {
    let sent: unknown;
    server.use(
      http.post(`${API}/chat`, async ({ request }) => {
        sent = await request.json();
        return answer([frame(META), frame({ type: 'chunk', text: 'Nest menus ' }), frame({ type: 'chunk', text: 'with children [1].' }), frame('[DONE]')]);
      }),
    );
    const message = await lastMessage(kbChatStream(kb(), { message: 'How do I nest menus?', source: 'user_docs' }));
    expect(sent).toEqual({ message: 'How do I nest menus?', source: 'user_docs', stream: true });
    expect(message!.id).toBe('m1');
    expect(message!.metadata).toEqual({ conversationId: 'c1', messageId: 'm1' });
    const text = message!.parts.filter((p) => p.type === 'text');
    expect(text).toEqual([expect.objectContaining({ type: 'text', text: 'Nest menus with children [1].', state: 'done' })]);
    expect(message!.parts.filter((p) => p.type === 'source-url')).toEqual([
      expect.objectContaining({ sourceId: 'd1', url: 'https://docs.example.com/menus#nested-menus', title: 'Menus' }),
    ]);
    expect(message!.parts.filter((p) => p.type === 'source-document')).toEqual([expect.objectContaining({ sourceId: 'd2', title: 'Internal notes' })]);
  });

  it('reports an error midway as an error chunk, keeping the text before it', async () => {
    server.use(http.post(`${API}/chat`, () => answer([frame(META), frame({ type: 'chunk', text: 'Partial' }), frame({ type: 'error', message: 'The language model is unavailable' }), frame('[DONE]')])));
    const chunks: UIMessageChunk[] = [];
    const stream = kbChatStream(kb(), { message: 'q' }).pipeThrough(
      new TransformStream<UIMessageChunk, UIMessageChunk>({ transform: (chunk, c) => (chunks.push(chunk), c.enqueue(chunk)) }),
    );
    const errors: unknown[] = [];
    const message = await lastMessage(stream, errors);
    expect(chunks.at(-1)).toEqual({ type: 'error', errorText: 'The language model is unavailable' });
    expect(message!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'Partial' });
  });

  it('reports a refusal (the service answered 429) as an error chunk with its message', async () => {
    server.use(http.post(`${API}/chat`, () => HttpResponse.json({ message: 'Rate limit exceeded', code: 'TOO_MANY_REQUESTS' }, { status: 429, headers: { 'retry-after': '3' } })));
    const chunks: UIMessageChunk[] = [];
    const reader = kbChatStream(kb(), { message: 'q' }).getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(chunks).toEqual([{ type: 'error', errorText: 'Rate limit exceeded' }]);
  });

  it('passes an abort through: the kb answer is cancelled and the stream ends with abort', async () => {
    let closed = false;
    const service = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame(META));
      res.write(frame({ type: 'chunk', text: 'First words' }));
      // The answer is still being written when the reader goes away.
      res.on('close', () => (closed = true));
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    try {
      const client = createKbClient({ baseUrl: `http://127.0.0.1:${(service.address() as AddressInfo).port}`, apiKey: 'kb_test' });
      const controller = new AbortController();
      const chunks: UIMessageChunk[] = [];
      const reader = kbChatStream(client, { message: 'q' }, { signal: controller.signal }).getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        chunks.push(next.value);
        if (next.value.type === 'text-delta') controller.abort();
      }
      expect(chunks.map((c) => c.type)).toEqual(['start', 'source-url', 'source-document', 'text-start', 'text-delta', 'abort']);
      await expect.poll(() => closed).toBe(true);
    } finally {
      service.closeAllConnections();
      service.close();
    }
  });

  it('kbChatResponse is a UI message stream response useChat reads', async () => {
    server.use(http.post(`${API}/chat`, () => answer([frame(META), frame({ type: 'chunk', text: 'Hi' }), frame('[DONE]')])));
    const response = kbChatResponse(kb(), { message: lastUserText([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }]) });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const body = await response.text();
    expect(body).toContain('"type":"text-delta"');
    expect(body).toContain('"messageMetadata":{"conversationId":"c1","messageId":"m1"}');
  });
});

describe('kbTools', () => {
  it('search and fetch_document call the service with the options, paging documents', async () => {
    let searched: unknown;
    server.use(
      http.post(`${API}/search`, async ({ request }) => {
        searched = await request.json();
        return HttpResponse.json({
          count: 1,
          results: [{ chunkId: 'k1', documentId: 'd1', documentTitle: 'Menus', slug: 'menus', url: 'https://docs.example.com/menus', anchor: 'nested', headingPath: 'Menus > Nested', content: 'Nest them.', namespace: 'user_docs', score: 0.9 }],
        });
      }),
      http.get(`${API}/documents/d1`, () =>
        HttpResponse.json({ id: 'd1', namespace: 'user_docs', slug: 'menus', title: 'Menus', url: 'https://docs.example.com/menus', metadata: {}, chunkCount: 1, createdAt: '', updatedAt: '', content: 'x'.repeat(25), chunks: [] }),
      ),
    );
    const tools = kbTools(kb(), { namespaces: ['user_docs'], maxChars: 10 });
    const options = { toolCallId: 't1', messages: [], context: {} };
    const found = await tools.search.execute!({ query: 'nested menus' }, options);
    expect(searched).toEqual({ query: 'nested menus', topK: 5, mode: 'hybrid', source: ['user_docs'] });
    expect(found).toEqual([{ documentId: 'd1', title: 'Menus', headingPath: 'Menus > Nested', url: 'https://docs.example.com/menus#nested', namespace: 'user_docs', score: 0.9, content: 'Nest them.' }]);
    const page = await tools.fetch_document.execute!({ id: 'd1', offset: 20 }, options);
    expect(page).toMatchObject({ id: 'd1', content: 'xxxxx', offset: 20, totalChars: 25, nextOffset: null });
    expect(await tools.fetch_document.execute!({ id: 'd1' }, options)).toMatchObject({ nextOffset: 10 });
    // The schemas the model sees are zod's.
    expect(tools.search.inputSchema).toBeDefined();
  });

  it('get_context calls POST /context with the budget and namespaces, linking each section', async () => {
    const asked: unknown[] = [];
    server.use(
      http.post(`${API}/context`, async ({ request }) => {
        asked.push(await request.json());
        return HttpResponse.json({
          passages: [
            { documentId: 'd1', title: 'Menus', slug: 'menus', namespace: 'user_docs', url: 'https://docs.example.com/menus', anchor: 'nested', headingPath: 'Menus > Nested', content: '## Nested\n\nNest them.', tokens: 6 },
            { documentId: 'd2', title: 'Front matter', slug: 'fm', namespace: 'user_docs', headingPath: 'Front matter', content: 'Set menus.', tokens: 3 },
          ],
          tokens: 9,
          maxTokens: 800,
        });
      }),
    );
    const options = { toolCallId: 't1', messages: [], context: {} };
    const tools = kbTools(kb(), { namespaces: ['user_docs'], maxTokens: 800 });
    const context = await tools.get_context.execute!({ question: 'how do I nest menus?' }, options);
    expect(context).toEqual({
      passages: [
        { documentId: 'd1', title: 'Menus', headingPath: 'Menus > Nested', url: 'https://docs.example.com/menus#nested', namespace: 'user_docs', content: '## Nested\n\nNest them.', tokens: 6 },
        { documentId: 'd2', title: 'Front matter', headingPath: 'Front matter', namespace: 'user_docs', content: 'Set menus.', tokens: 3 },
      ],
      tokens: 9,
    });
    // The model's own budget wins over the option; without either the service's default applies.
    await tools.get_context.execute!({ question: 'menus', maxTokens: 300 }, options);
    await kbTools(kb()).get_context.execute!({ question: 'menus' }, options);
    expect(asked).toEqual([
      { question: 'how do I nest menus?', maxTokens: 800, source: ['user_docs'] },
      { question: 'menus', maxTokens: 300, source: ['user_docs'] },
      { question: 'menus' },
    ]);
  });
});
