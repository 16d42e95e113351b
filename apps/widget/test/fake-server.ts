import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { widgetFile } from '../index.js';

/**
 * A stand-in for the server's side of the assistant (docs/assistant.md's contract): the script
 * at /widget/v1/, GET /assistant/config with the origin check, POST /assistant/visitor, the chat
 * stream, feedback and GET /conversations/{id}, with CORS as the server answers it. It records
 * what the browser sent, and can write an answer slowly (to stop it) or refuse with a 429.
 */

export interface FakeKey {
  key: string;
  origins: string[];
  namespaces: string[];
  botCheck?: { provider: 'turnstile' | 'hcaptcha'; siteKey: string };
  /** Who writes the answers, as the server's config says (default extractive). */
  answerer?: 'model' | 'extractive';
}

export interface ChatRequest {
  message: string;
  conversationId?: string;
  source?: string[];
  origin: string | undefined;
  visitor: string | undefined;
}

export interface FakeServer {
  url: string;
  chats: ChatRequest[];
  feedback: Array<{ messageId: string; rating: string; reasons?: string[]; note?: string }>;
  configs: Array<{ origin: string | undefined; status: number }>;
  visitors: string[];
  faqs: Array<{ q: string | null; source: string | null }>;
  close(): Promise<void>;
}

/** The answer's Markdown, hostile parts included: none of them may reach the page as markup. */
export const ANSWER = [
  'To install, run `pnpm install` and then **start** the server:',
  '',
  '```sh',
  'pnpm start <script>alert(1)</script>',
  '```',
  '',
  'See [the install guide](https://docs.example.com/install#requirements) for details. <img src=x onerror="window.pwned=1">',
  '[Do not click](javascript:window.pwned=2)',
].join('\n');

export const SOURCES = [
  { title: 'Install <b>guide</b>', documentId: 'd1', slug: 'install', namespace: 'user_docs', url: 'https://docs.example.com/install', anchor: 'requirements', section: 'Requirements' },
  { title: 'Configuration', documentId: 'd2', slug: 'configuration', namespace: 'user_docs', url: 'https://docs.example.com/configuration' },
];

const VISITOR_TOKEN = 'visitor-token-1';

/** The FAQ the fake serves for any topic: its questions are the assistant's examples. */
export const FAQ_QUESTIONS = ['How do I install the tool?', 'Which settings does it read?', 'Where are the logs?', 'How do I upgrade?', 'Can I run it offline?'];

/** A long answer: the view must show its beginning, not its end. */
export const LONG_ANSWER = ['The first line of the long answer.', '', ...Array.from({ length: 40 }, (_, n) => `Line ${n + 1} of the long answer, with a few more words.`), '', 'The last line of the long answer.'].join('\n\n');

export async function startFakeServer(keys: FakeKey[]): Promise<FakeServer> {
  const chats: ChatRequest[] = [];
  const feedback: FakeServer['feedback'] = [];
  const configs: FakeServer['configs'] = [];
  const visitors: string[] = [];
  const faqs: FakeServer['faqs'] = [];
  const conversations = new Map<string, Array<{ id: string; role: 'user' | 'assistant'; content: string; sources: unknown[]; feedback: unknown }>>();

  function cors(req: IncomingMessage, res: ServerResponse, key: FakeKey | undefined): boolean {
    const origin = req.headers.origin;
    if (origin && key?.origins.includes(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id');
      return true;
    }
    return false;
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname === '/widget/v1/kb-assistant.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
      res.end(readFileSync(widgetFile));
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const keyName = url.pathname === '/api/v1/assistant/config' ? url.searchParams.get('key') : bearer;
    const key = keys.find((candidate) => candidate.key === keyName);
    if (req.method === 'OPTIONS') {
      if (!cors(req, res, keys.find((candidate) => candidate.origins.includes(req.headers.origin ?? '')))) return send(res, 403, { message: 'origin not allowed', code: 'FORBIDDEN' });
      res.writeHead(204, {
        'Access-Control-Allow-Methods': 'GET, POST',
        'Access-Control-Allow-Headers': 'authorization, content-type, x-kb-visitor, x-request-id',
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return;
    }
    const allowed = cors(req, res, key);
    if (!key) return send(res, 401, { message: 'Unknown key', code: 'UNAUTHORIZED' });
    if (!allowed) {
      // The refusal is readable by the page that was refused, so it can say why.
      res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
      if (url.pathname === '/api/v1/assistant/config') configs.push({ origin: req.headers.origin, status: 403 });
      return send(res, 403, { message: `This site (${req.headers.origin}) is not allowed to use this assistant`, code: 'FORBIDDEN' });
    }
    if (url.pathname === '/api/v1/assistant/config') {
      configs.push({ origin: req.headers.origin, status: 200 });
      return send(res, 200, { namespaces: key.namespaces, botCheck: key.botCheck ?? null, limits: { visitorRateLimitRpm: 10, visitorRateLimitRpd: 100 }, answerer: key.answerer ?? 'extractive' });
    }
    if (url.pathname === '/api/v1/assistant/visitor' && req.method === 'POST') {
      const { token } = await readJson(req);
      visitors.push(String(token));
      if (token !== 'fake-captcha-token') return send(res, 403, { message: 'The bot check failed', code: 'FORBIDDEN' });
      return send(res, 200, { visitorToken: VISITOR_TOKEN, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    }
    if (key.botCheck && req.headers['x-kb-visitor'] !== VISITOR_TOKEN) {
      return send(res, 401, { message: 'Please complete the bot check first', code: 'UNAUTHORIZED' });
    }
    if (url.pathname === '/api/v1/faq' && req.method === 'GET') {
      faqs.push({ q: url.searchParams.get('q'), source: url.searchParams.get('source') });
      const content = FAQ_QUESTIONS.map((question) => `## ${question}\n\nThe answer.\n`).join('\n');
      return send(res, 200, { query: url.searchParams.get('q'), scope: url.searchParams.get('source'), language: 'en', content, cached: true, sources: [], generatedAt: new Date().toISOString() });
    }
    if (url.pathname === '/api/v1/chat' && req.method === 'POST') {
      const body = await readJson(req);
      const message = String(body.message);
      chats.push({
        message,
        ...(typeof body.conversationId === 'string' ? { conversationId: body.conversationId } : {}),
        ...(Array.isArray(body.source) ? { source: body.source as string[] } : {}),
        origin: req.headers.origin,
        visitor: req.headers['x-kb-visitor'] as string | undefined,
      });
      if (/limit/i.test(message)) {
        return send(res, 429, { message: 'You have asked 10 questions in the last minute', code: 'TOO_MANY_REQUESTS' }, { 'Retry-After': '20' });
      }
      const conversationId = typeof body.conversationId === 'string' ? body.conversationId : randomUUID();
      const messageId = randomUUID();
      const slow = /slow/i.test(message);
      const text = slow
        ? Array.from({ length: 200 }, (_, n) => `Part ${n} of a long answer. `).join('')
        : /follow/i.test(message)
          ? 'Yes: the same settings apply to the follow-up.'
          : /long/i.test(message)
            ? LONG_ANSWER
            : ANSWER;
      const history = conversations.get(conversationId) ?? [];
      conversations.set(conversationId, history);
      history.push({ id: randomUUID(), role: 'user', content: message, sources: [], feedback: null });
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      const write = (data: unknown) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      write({ type: 'meta', conversationId, messageId, sources: SOURCES });
      let written = '';
      let closed = false;
      res.on('close', () => (closed = true));
      for (const piece of text.match(/[\s\S]{1,12}/g) ?? []) {
        if (closed) break;
        written += piece;
        write({ type: 'chunk', text: piece });
        await sleep(slow ? 60 : 5);
      }
      history.push({ id: messageId, role: 'assistant', content: written, sources: SOURCES, feedback: null });
      if (!closed) {
        write('[DONE]');
        res.end();
      }
      return;
    }
    if (url.pathname === '/api/v1/chat/feedback' && req.method === 'POST') {
      const body = (await readJson(req)) as FakeServer['feedback'][number];
      feedback.push(body);
      for (const messages of conversations.values()) {
        const found = messages.find((message) => message.id === body.messageId);
        if (found) found.feedback = { rating: body.rating, reasons: body.reasons ?? [], note: body.note ?? null };
      }
      return send(res, 200, { ...body, updatedAt: new Date().toISOString() });
    }
    const conversation = /^\/api\/v1\/conversations\/([\w-]+)$/.exec(url.pathname);
    if (conversation && req.method === 'GET') {
      const messages = conversations.get(conversation[1]!);
      if (!messages) return send(res, 404, { message: 'No such conversation', code: 'NOT_FOUND' });
      return send(res, 200, { id: conversation[1], language: 'en', source: key.namespaces, createdAt: '', updatedAt: '', messages });
    }
    send(res, 404, { message: `No route ${req.method} ${url.pathname}`, code: 'NOT_FOUND' });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { message: String(error), code: 'INTERNAL_SERVER_ERROR' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    chats,
    feedback,
    configs,
    visitors,
    faqs,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
