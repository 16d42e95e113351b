import { http, HttpResponse } from 'msw';
import type { SetupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MENUS, questionsOf } from './faq-fixtures.ts';
import { json, startTestService, type TestService } from './helpers.ts';
import { startMockServer } from './msw.ts';

const ANTHROPIC = 'https://anthropic.test';
const MODEL = 'claude-test-model';
const env = { ANTHROPIC_API_KEY: 'sk-ant-test-key', ANTHROPIC_BASE_URL: ANTHROPIC, ANTHROPIC_MODEL: MODEL };

const pair = (n: number, sources = ['Menus']) => ({ question: `How do menus work, part ${n}?`, answer: `Menus are lists of links (${n}).`, sources });
/** A Messages API reply calling the FAQ tool with `input`, or answering in prose when it is undefined. */
const reply = (input: unknown) =>
  HttpResponse.json({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content: input === undefined ? [{ type: 'text', text: 'Sure! Here is an FAQ about menus.' }] : [{ type: 'tool_use', id: 'toolu_1', name: 'record_faq', input }],
    stop_reason: input === undefined ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 50 },
  });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type MessagesRequest = { model: string; tool_choice: unknown; messages: Array<{ content: any[] }> };

describe('GET /api/v1/faq with Claude (mocked)', () => {
  let mock: SetupServer;
  let service: TestService;
  let requests: MessagesRequest[];
  /** Answers the model's calls in turn with `replies` (the last one repeats). */
  const model = (...replies: Array<() => Response | Promise<Response>>) =>
    mock.use(
      http.post(`${ANTHROPIC}/v1/messages`, async ({ request }) => {
        requests.push((await request.json()) as MessagesRequest);
        return (replies.length > 1 ? replies.shift()! : replies[0]!)();
      }),
    );
  const faq = (q: string) => service.api(`/api/v1/faq?q=${encodeURIComponent(q)}`);

  beforeAll(async () => {
    mock = startMockServer();
    service = await startTestService('pglite', { env: { ...env, KB_FAQ_RATE_LIMIT_PER_MINUTE: '100' } });
    const { key } = await service.createKey({ admin: true });
    await service.api('/api/v1/ingest/md', {
      method: 'POST',
      key,
      json: { title: 'Menus', slug: 'menus', namespace: 'user_docs', content: MENUS, metadata: { url: 'https://docs.example.com/menus/' } },
    });
  });
  afterEach(() => {
    mock.resetHandlers();
    requests = [];
  });
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });
  requests = [];

  it('renders the model’s pairs with their sources linked, and serves them from the cache after', async () => {
    model(() => reply({ pairs: [1, 2, 3, 4, 5, 6].map((n) => pair(n)) }));
    const res = await faq('menus');
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ query: 'menus', language: 'en', cached: false, sources: [{ title: 'Menus', url: 'https://docs.example.com/menus/' }] });
    expect(questionsOf(body.content)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `How do menus work, part ${n}?`));
    expect(body.content).toContain('## How do menus work, part 1?\n\nMenus are lists of links (1).\n\nSources: [Menus](https://docs.example.com/menus/)');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ model: MODEL, tool_choice: { type: 'tool', name: 'record_faq' } });
    expect(requests[0]!.messages[0]!.content[0].text).toContain('<passage index="1" title="Menus"');
    expect(requests[0]!.messages[0]!.content[0].text).toContain('url="https://docs.example.com/menus/"');

    const again = await json(await faq('  MENUS '));
    expect(again).toMatchObject({ cached: true, content: body.content, generatedAt: body.generatedAt });
    expect(requests).toHaveLength(1);
  });

  it('asks again after a malformed reply', async () => {
    model(
      () => reply(undefined),
      () => reply({ pairs: [1, 2, 3, 4, 5].map((n) => pair(n)) }),
    );
    const body = await json(await faq('menu entry properties'));
    expect(questionsOf(body.content)).toHaveLength(5);
    expect(requests).toHaveLength(2);
  });

  it('asks again when fewer than 5 pairs are usable, and serves the better reply without padding it', async () => {
    model(
      () => reply({ pairs: [pair(1), pair(2, ['A page that was not given'])] }),
      () => reply({ pairs: [pair(1), pair(2), pair(3)] }),
    );
    const body = await json(await faq('render menus'));
    expect(questionsOf(body.content)).toEqual([1, 2, 3].map((n) => `How do menus work, part ${n}?`));
    expect(requests).toHaveLength(2);
    expect(requests[1]!.messages[0]!.content[1].text).toMatch(/previous reply had 1 usable pair \(pair 2 .* names no passage that was given\)/);
  });

  it('answers 503 when the model fails, stores nothing, and tries again on the next request', async () => {
    model(() => HttpResponse.json({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { status: 529, headers: { 'retry-after': '0' } }));
    const res = await faq('localize menus');
    expect(res.status).toBe(503);
    const body = await json(res);
    expect(body).toEqual({ message: expect.stringMatching(/language model \(claude-test-model\) failed \(HTTP 529\)/), code: 'SERVICE_UNAVAILABLE', requestId: expect.any(String) });
    expect(JSON.stringify(body)).not.toContain('sk-ant');
    expect(requests.length).toBeGreaterThan(1);
    const rows = await service.services.database.db.selectFrom('faq_cache').select('query').execute();
    expect(rows.map((r) => r.query)).not.toContain('localize menus');

    mock.resetHandlers();
    requests = [];
    model(() => reply({ pairs: [1, 2, 3, 4, 5].map((n) => pair(n)) }));
    expect((await json(await faq('localize menus'))).cached).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('answers 502 when the model twice replies without the FAQ', async () => {
    model(() => reply({ pairs: 'none' }));
    const res = await faq('menu weights and names');
    expect(res.status).toBe(502);
    expect(await json(res)).toMatchObject({ code: 'BAD_GATEWAY', message: expect.stringMatching(/did not return a usable FAQ/) });
    expect(requests).toHaveLength(2);
  });

  it('calls the model once for concurrent identical requests', async () => {
    model(async () => {
      await new Promise((r) => setTimeout(r, 300));
      return reply({ pairs: [1, 2, 3, 4, 5].map((n) => pair(n)) });
    });
    const bodies = await Promise.all(Array.from({ length: 5 }, () => faq('menus in front matter').then(json)));
    expect(requests).toHaveLength(1);
    expect(bodies.filter((b) => b.cached === false)).toHaveLength(1);
    expect(new Set(bodies.map((b) => b.content)).size).toBe(1);
  });

  it('does not call the model for a topic the knowledge base does not hold', async () => {
    model(() => reply({ pairs: [] }));
    expect((await faq('kubernetes helm charts')).status).toBe(404);
    expect(requests).toHaveLength(0);
  });

  it('answers 404 when the model finds the passages do not cover the topic', async () => {
    model(() => reply({ pairs: [] }));
    expect((await faq('menus for printers')).status).toBe(404);
    expect(requests).toHaveLength(1);
  });
});

describe('the daily limit of FAQs written by the model', () => {
  let mock: SetupServer;
  let service: TestService;
  let calls = 0;
  beforeAll(async () => {
    mock = startMockServer();
    mock.use(
      http.post(`${ANTHROPIC}/v1/messages`, () => {
        calls++;
        return reply({ pairs: [1, 2, 3, 4, 5].map((n) => pair(n)) });
      }),
    );
    service = await startTestService('pglite', { env: { ...env, KB_FAQ_DAILY_LIMIT: '2' } });
    const { key } = await service.createKey({ admin: true });
    await service.api('/api/v1/ingest/md', { method: 'POST', key, json: { title: 'Menus', slug: 'menus', namespace: 'user_docs', content: MENUS } });
  });
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });

  it('answers 429 with Retry-After and RateLimit headers once it is used up, and keeps serving cached FAQs', async () => {
    expect((await service.api('/api/v1/faq?q=menus')).status).toBe(200);
    expect((await service.api('/api/v1/faq?q=render%20menus')).status).toBe(200);
    const blocked = await service.api('/api/v1/faq?q=localize%20menus');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(blocked.headers.get('ratelimit-limit')).toBe('2');
    expect(blocked.headers.get('ratelimit-remaining')).toBe('0');
    expect(await json(blocked)).toMatchObject({ code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/daily number of new FAQs/) });
    expect(calls).toBe(2);
    const cached = await service.api('/api/v1/faq?q=menus');
    expect(cached.status).toBe(200);
    expect((await json(cached)).cached).toBe(true);
  });
});
