import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { ClaudeQueryRewriter, createAnthropicClient, parseRewrite, streamText, type RetryPolicy } from './claude.ts';

const BASE = 'https://anthropic.test';
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function sse(texts: string[], tail: Array<Record<string, unknown>> = [{ type: 'message_stop' }]): Response {
  const events = [
    { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'x', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ...texts.map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    ...tail,
  ];
  const body = events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');
  return new HttpResponse(
    new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(body));
        controller.close();
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );
}

const delays: number[] = [];
const policy: RetryPolicy = {
  attempts: 3,
  baseDelayMs: 100,
  maxDelayMs: 2_000,
  sleep: async (ms) => {
    delays.push(ms);
  },
};
afterEach(() => {
  delays.length = 0;
});

const request = { model: 'claude-x', maxTokens: 50, system: [{ type: 'text' as const, text: 'system' }], messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'q' }] }] };
const collect = async (gen: AsyncIterable<string>) => {
  let text = '';
  for await (const t of gen) text += t;
  return text;
};
const client = () => createAnthropicClient({ apiKey: 'sk-ant-secret', baseUrl: BASE });

describe('streamText and its retry policy', () => {
  it('retries 429, 529 and 5xx before the first token, honouring Retry-After', async () => {
    const statuses = [429, 529];
    server.use(
      http.post(`${BASE}/v1/messages`, () => {
        const status = statuses.shift();
        if (status) return HttpResponse.json({ type: 'error', error: { type: 'x', message: 'busy' } }, { status, headers: status === 429 ? { 'retry-after': '1' } : {} });
        return sse(['Hello', ' world']);
      }),
    );
    expect(await collect(streamText(client(), request, { policy }))).toBe('Hello world');
    expect(delays[0]).toBe(1_000);
    expect(delays).toHaveLength(2);
  });

  it('gives up after its attempts with a 503 that names no secret', async () => {
    let calls = 0;
    server.use(http.post(`${BASE}/v1/messages`, () => (calls++, HttpResponse.json({ type: 'error', error: { type: 'api_error', message: 'boom' } }, { status: 500 }))));
    const error = await collect(streamText(client(), request, { policy })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('SERVICE_UNAVAILABLE');
    expect((error as AppError).message).not.toContain('sk-ant');
    expect(calls).toBe(3);
  });

  it('does not retry a request the API refuses', async () => {
    let calls = 0;
    server.use(http.post(`${BASE}/v1/messages`, () => (calls++, HttpResponse.json({ type: 'error', error: { type: 'invalid_request_error', message: 'bad' } }, { status: 400 }))));
    await expect(collect(streamText(client(), request, { policy }))).rejects.toBeInstanceOf(AppError);
    expect(calls).toBe(1);
  });

  it('does not retry once text was passed on', async () => {
    let calls = 0;
    server.use(http.post(`${BASE}/v1/messages`, () => (calls++, sse(['partial'], [{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]))));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const t of streamText(client(), request, { policy })) seen.push(t);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['partial']);
    expect(error).toBeInstanceOf(AppError);
    expect(calls).toBe(1);
  });

  it('retries an error event that comes before any text', async () => {
    let calls = 0;
    server.use(http.post(`${BASE}/v1/messages`, () => (++calls === 1 ? sse([], [{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]) : sse(['ok']))));
    expect(await collect(streamText(client(), request, { policy }))).toBe('ok');
    expect(calls).toBe(2);
  });
});

describe('query rewrites', () => {
  it('asks the model for a standalone query and variants, and checks its reply', async () => {
    let prompt = '';
    server.use(
      http.post(`${BASE}/v1/messages`, async ({ request: req }) => {
        const body = (await req.json()) as { messages: Array<{ content: Array<{ text: string }> }> };
        prompt = body.messages[0]!.content[0]!.text;
        return sse(['{"query": "install Hugo on Windows", ', '"variants": ["winget install hugo", "Windows installation", "install Hugo on Windows"]}']);
      }),
    );
    const rewriter = new ClaudeQueryRewriter(client(), { model: 'claude-x', historyTokens: 1000 }, { policy });
    const rewritten = await rewriter.rewrite('and on Windows?', [
      { role: 'user', content: 'How do I install Hugo on macOS?' },
      { role: 'assistant', content: 'brew install hugo' },
    ]);
    expect(rewritten).toEqual({ query: 'install Hugo on Windows', variants: ['winget install hugo', 'Windows installation'] });
    expect(prompt).toContain('User: How do I install Hugo on macOS?');
    expect(prompt).toContain('Latest message: and on Windows?');
  });

  it('falls back to the message when the reply is not usable', () => {
    expect(parseRewrite('Sorry, I cannot.', 'q')).toEqual({ query: 'q', variants: [] });
    expect(parseRewrite('{"query": 5, "variants": "x"}', 'q')).toEqual({ query: 'q', variants: [] });
  });
});
