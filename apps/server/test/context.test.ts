import { testStoreKinds, type TestStoreKind } from '@kb/db/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { parseMetrics, sumOf } from './metrics-scrape.ts';
import { securitySuite } from './security.ts';

const kinds = await testStoreKinds();
/** Embedded (PGlite, in-process limits) and services mode (PostgreSQL, limits in Redis). */
const modes: Array<[string, TestStoreKind, boolean]> = [
  ['embedded', 'pglite', false],
  ...(kinds.includes('postgres') ? [['postgres', 'postgres', false] as [string, TestStoreKind, boolean], ['services: postgres + redis', 'postgres', true] as [string, TestStoreKind, boolean]] : []),
];

const INSTALL = `---
url: https://docs.example.com/install
---
# Installing Orbit

Orbit runs on Linux and macOS. Download the archive, unpack it and run \`orbit init\`.

## Upgrading {#upgrade-orbit}

Stop the daemon with \`orbit stop\`, replace the binary, then run \`orbit migrate\`.
`;

const CACHE = `# Caching

The cache keeps a page for 300 seconds by default. Set \`cache.ttl\` to change it.
`;

/** Long sections: a small budget cannot hold them all. */
const REFERENCE = `# Scheduler reference\n\n${Array.from({ length: 12 }, (_, i) => `## Upgrade step ${i}\n\nDuring an orbit upgrade, step ${i} drains the scheduler queue ${i} before the binary is replaced; ${'the scheduler waits for running tasks and then stops. '.repeat(6)}\n`).join('\n')}`;

const METRICS_TOKEN = 'context-metrics-token-0123456789';

describe.each(modes)('POST /api/v1/context (%s)', (_mode, kind, redis) => {
  let service: TestService;
  let admin: string;
  let reader: { id: string; key: string };
  const docs: Record<string, string> = {};
  const context = (body: unknown, key = reader.key, headers: Record<string, string> = {}) =>
    service.api('/api/v1/context', { method: 'POST', key, headers, json: body });

  beforeAll(async () => {
    service = await startTestService(kind, { redis, env: { KB_METRICS: 'true', KB_METRICS_TOKEN: METRICS_TOKEN, KB_TRUST_PROXY: 'true' } });
    admin = (await service.createKey({ admin: true })).key;
    reader = await service.createKey({ label: 'reader' });
    const ingest = async (body: Record<string, unknown>) =>
      (await json(await service.api('/api/v1/ingest/md', { method: 'POST', key: admin, json: body }))).documentId as string;
    docs.install = await ingest({ title: 'Installing Orbit', slug: 'guides/install.md', namespace: 'user_docs', content: INSTALL });
    docs.cache = await ingest({ title: 'Caching', slug: 'ops/cache.md', namespace: 'tech_docs', content: CACHE });
    docs.reference = await ingest({ title: 'Scheduler reference', slug: 'reference/scheduler.md', namespace: 'tech_docs', content: REFERENCE });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  it('returns the passages the chat answers from, with their sections and links, within the budget', async () => {
    const res = await context({ question: 'How do I upgrade orbit?', maxTokens: 2000 });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.maxTokens).toBe(2000);
    expect(body.passages[0]).toMatchObject({
      documentId: docs.install,
      title: 'Installing Orbit',
      slug: 'guides/install.md',
      namespace: 'user_docs',
      url: 'https://docs.example.com/install',
      // The id the author gave the heading, which the site uses; the heading as the site shows it.
      anchor: 'upgrade-orbit',
      headingPath: 'Installing Orbit > Upgrading',
      tokens: expect.any(Number),
    });
    expect(body.passages[0].content).toContain('orbit migrate');
    expect(body.tokens).toBe(body.passages.reduce((sum: number, p: { tokens: number }) => sum + p.tokens, 0));
    expect(body.tokens).toBeLessThanOrEqual(2000);
    // The chat's own retrieval: the answer's sources are among these passages' documents.
    const chat = await json(await service.api('/api/v1/chat', { method: 'POST', key: reader.key, json: { message: 'How do I upgrade orbit?', stream: false } }));
    const documents = new Set(body.passages.map((p: { documentId: string }) => p.documentId));
    expect(chat.sources.length).toBeGreaterThan(0);
    expect(chat.sources).toContainEqual(expect.objectContaining({ documentId: docs.install, anchor: 'upgrade-orbit', section: 'Upgrading' }));
    for (const source of chat.sources) expect(documents).toContain(source.documentId);
  });

  it('keeps to a small budget, and defaults to the chat budget', async () => {
    const wide = await json(await context({ question: 'orbit upgrade scheduler queue drains', maxTokens: 32_000 }));
    const narrow = await json(await context({ question: 'orbit upgrade scheduler queue drains', maxTokens: 300 }));
    expect(wide.tokens).toBeGreaterThan(300);
    expect(narrow.passages.length).toBeGreaterThan(0);
    expect(narrow.tokens).toBeLessThanOrEqual(300);
    const byDefault = await json(await context({ question: 'orbit upgrade scheduler queue drains' }));
    expect(byDefault.maxTokens).toBe(3000);
    expect(byDefault.tokens).toBeLessThanOrEqual(3000);
  });

  it('refuses bad input with 400 naming the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /question/],
      [{ question: '   ' }, /question must not be empty/],
      [{ question: 'q', maxTokens: 10 }, /maxTokens/],
      [{ question: 'q', maxTokens: 1_000_000 }, /maxTokens/],
      [{ question: 'q', maxTokens: 1.5 }, /maxTokens/],
      [{ question: 'q', source: 'nowhere' }, /source/],
      [{ question: 'q', namespaces: ['user_docs'] }, /unknown field "namespaces"/],
    ];
    for (const [body, message] of cases) {
      const res = await context(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).message, JSON.stringify(body)).toMatch(message);
    }
  });

  it('holds scoped and publishable keys to their namespaces, and counts a publishable key\'s questions', async () => {
    const scoped = (await service.services.keys.create({ label: 'tech', namespaces: ['tech_docs'] })).key;
    const outside = await context({ question: 'install orbit', source: 'user_docs' }, scoped);
    expect(outside.status).toBe(403);
    expect((await json(outside)).message).toBe('This key may not use the namespace "user_docs": it is limited to tech_docs');
    const within = await json(await context({ question: 'install orbit or cache' }, scoped));
    expect(within.passages.length).toBeGreaterThan(0);
    expect(within.passages.every((p: { namespace: string }) => p.namespace === 'tech_docs')).toBe(true);

    const site = 'https://docs.example.com';
    const { key } = await service.services.keys.create({ label: 'site', kind: 'publishable', namespaces: ['user_docs'], allowedOrigins: [site], visitorRateLimitRpm: 1 });
    const page = (visitor: string) => ({ origin: site, 'x-forwarded-for': visitor });
    const first = await context({ question: 'install orbit' }, key, page('198.51.100.7'));
    expect(first.status).toBe(200);
    expect(first.headers.get('access-control-allow-origin')).toBe(site);
    expect((await json(first)).passages.every((p: { namespace: string }) => p.namespace === 'user_docs')).toBe(true);
    const second = await context({ question: 'install orbit' }, key, page('198.51.100.7'));
    expect(second.status).toBe(429);
    expect((await json(second)).message).toMatch(/^You have asked one question in the last minute/);
    expect((await context({ question: 'install orbit' }, key, { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('gives search results the anchor of their section, as chat sources carry it', async () => {
    const found = await json(await service.api('/api/v1/search', { method: 'POST', key: reader.key, json: { query: 'stop the daemon and migrate', mode: 'hybrid', topK: 1 } }));
    expect(found.results[0]).toMatchObject({ documentId: docs.install, url: 'https://docs.example.com/install', anchor: 'upgrade-orbit', headingPath: 'Installing Orbit > Upgrading' });
    // No url, no anchor to append to it.
    const cache = await json(await service.api('/api/v1/search', { method: 'POST', key: reader.key, json: { query: 'cache ttl seconds', mode: 'hybrid', topK: 1 } }));
    expect(cache.results[0].documentId).toBe(docs.cache);
    expect(cache.results[0]).not.toHaveProperty('anchor');
  });

  it('records searches, context calls and answers alike through every door: REST, tRPC and MCP, in the query log and the metrics', async () => {
    const scrape = async () => parseMetrics(await (await service.api('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
    const before = await scrape();
    const secret = await service.services.keys.create({ label: 'doors secret' });

    expect((await service.api('/api/v1/search', { method: 'POST', key: secret.key, json: { query: 'rest search for orbit', mode: 'hybrid' } })).status).toBe(200);
    expect((await service.api('/trpc/search', { method: 'POST', key: secret.key, json: { query: 'trpc search for orbit', mode: 'hybrid' } })).status).toBe(200);
    expect((await context({ question: 'rest context for orbit' }, secret.key)).status).toBe(200);
    const client = new Client({ name: 'kb-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${secret.key}` } } }));
    const searched = (await client.callTool({ name: 'search', arguments: { query: 'mcp search for orbit', mode: 'hybrid' } })) as CallToolResult;
    expect(searched.isError).toBeFalsy();
    const got = (await client.callTool({ name: 'get_context', arguments: { question: 'mcp context for orbit' } })) as CallToolResult;
    expect(got.isError).toBeFalsy();
    // Answering too: the chat use case records itself, whether REST or MCP asked.
    const asked = (await client.callTool({ name: 'ask', arguments: { question: 'mcp ask about orbit' } })) as CallToolResult;
    expect(asked.isError).toBeFalsy();
    await client.close();
    expect((await service.api('/api/v1/chat', { method: 'POST', key: secret.key, json: { message: 'rest ask about orbit', stream: false } })).status).toBe(200);

    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels) - sumOf(before, name, labels);
    expect(moved('kb_search_duration_seconds_count', { mode: 'hybrid' })).toBe(3);
    expect(moved('kb_context_duration_seconds_count')).toBe(2);
    expect(moved('kb_chat_answers_total', { answerer: 'extractive' })).toBe(2);

    await service.services.queryLog.flush();
    const rows = await service.services.database.db.selectFrom('query_log').select(['query', 'kind', 'api_key_id']).where('api_key_id', '=', secret.id).execute();
    const logged = (kind: string) => rows.filter((r) => r.kind === kind).map((r) => r.query).sort();
    expect(logged('search')).toEqual(['mcp context for orbit', 'mcp search for orbit', 'rest context for orbit', 'rest search for orbit', 'trpc search for orbit']);
    expect(logged('chat')).toEqual(['mcp ask about orbit', 'rest ask about orbit']);
  });

  describe('security', () => {
    securitySuite(() => service, [{ procedure: 'context', json: { question: 'install orbit' } }]);
  });
});
