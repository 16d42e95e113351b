import { testStoreKinds } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { startMockServer } from './msw.ts';
import { securitySuite } from './security.ts';

const kinds = await testStoreKinds();

describe.each(kinds)('GET /api/v1/insights/gaps (%s)', (kind) => {
  let service: TestService;
  let admin: string;
  let user: { id: string; key: string };
  let mock: ReturnType<typeof startMockServer>;
  const gaps = (query = '') => service.api(`/api/v1/insights/gaps${query}`, { key: admin });

  beforeAll(async () => {
    mock = startMockServer();
    service = await startTestService(kind);
    admin = (await service.createKey({ admin: true })).key;
    user = await service.createKey({ admin: false });
    await service.api('/api/v1/ingest/md', {
      method: 'POST',
      key: admin,
      json: { title: 'Menus', namespace: 'user_docs', content: '# Menus\n\n## Define menus\n\nTo add a page to a menu, set menus in its front matter.\n' },
    });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });

  it('records searches and chat questions with their best score, and lists the weakest first, repeats grouped', async () => {
    const search = (query: string, extra: Record<string, unknown> = {}) =>
      service.api('/api/v1/search', { method: 'POST', key: user.key, json: { query, ...extra } });
    expect((await search('how do I define menus in front matter')).status).toBe(200);
    expect((await search('Kubernetes helm chart rollback', { source: 'tech_docs' })).status).toBe(200);
    expect((await search('kubernetes  HELM chart rollback', { mode: 'hybrid' })).status).toBe(200);
    const chat = await service.api('/api/v1/chat', { method: 'POST', key: user.key, json: { message: 'How do I define menus?', stream: false } });
    expect(chat.status).toBe(200);

    const res = await gaps();
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(user.key);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ total: 3, take: 50, skip: 0 });
    // Nothing in tech_docs, nothing like it anywhere: the weakest, first; asked twice.
    expect(body.gaps[0]).toMatchObject({ query: 'kubernetes  HELM chart rollback', count: 2, namespaces: ['tech_docs'], kinds: ['search'] });
    const menus = body.gaps.find((g: { query: string }) => g.query === 'how do I define menus in front matter');
    expect(menus.bestScore).toBeGreaterThan(0);
    expect(body.gaps.find((g: { query: string }) => g.query === 'How do I define menus?')).toMatchObject({ kinds: ['chat'], count: 1 });
    for (const gap of body.gaps) {
      if (gap.meanScore !== null) expect(gap.meanScore).toBeLessThanOrEqual(1);
      expect(new Date(gap.lastAskedAt).toISOString()).toBe(gap.lastAskedAt);
    }
    // The key's id is recorded, never the key.
    const rows = await service.services.database.db.selectFrom('query_log').select('api_key_id').execute();
    expect(new Set(rows.map((r) => r.api_key_id))).toEqual(new Set([user.id]));

    expect((await json(await gaps('?kind=chat'))).gaps.map((g: { query: string }) => g.query)).toEqual(['How do I define menus?']);
    expect((await json(await gaps('?limit=1'))).gaps).toHaveLength(1);
  });

  it('keeps logging after a query longer than an index entry holds', async () => {
    // 3 bytes a character: more than a B-tree index entry holds, however it is cut.
    const long = '語'.repeat(10_000);
    expect((await service.api('/api/v1/search', { method: 'POST', key: user.key, json: { query: long } })).status).toBe(200);
    expect((await service.api('/api/v1/search', { method: 'POST', key: user.key, json: { query: 'after the long one' } })).status).toBe(200);
    const listed = (await json(await gaps('?limit=200'))).gaps.map((g: { query: string }) => g.query);
    expect(listed).toContain('after the long one');
    expect(listed).toContain('語'.repeat(500));
  });

  it('rejects bad parameters with 400 naming them', async () => {
    for (const [query, field] of [
      ['?kind=faq', 'kind'],
      ['?maxScore=2', 'maxScore'],
      ['?limit=0', 'limit'],
      ['?offset=-1', 'offset'],
    ] as const) {
      const res = await gaps(query);
      expect(res.status, query).toBe(400);
      expect((await json(res)).issues.map((i: { path: string[] }) => i.path.join('.'))).toContain(field);
    }
    const unknown = await gaps('?days=3');
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).message).toBe('Unknown query parameter "days": it takes only "kind", "maxScore", "limit", "offset"');
  });

  describe('security', () => {
    securitySuite(() => service, [{ procedure: 'insights.gaps' }]);
  });
});

describe('the query log turned off (KB_QUERY_LOG_DAYS=0)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('pglite', { env: { KB_QUERY_LOG_DAYS: '0' } });
  }, 60_000);
  afterAll(() => service?.close());

  it('records nothing and lists nothing', async () => {
    const { key } = await service.createKey({ admin: true });
    expect((await service.api('/api/v1/search', { method: 'POST', key, json: { query: 'anything at all' } })).status).toBe(200);
    expect(await json(await service.api('/api/v1/insights/gaps', { key }))).toEqual({ gaps: [], total: 0, take: 50, skip: 0 });
    expect(await service.services.database.db.selectFrom('query_log').select('id').execute()).toEqual([]);
  });
});
