import { randomBytes } from 'node:crypto';
import { testStoreKinds } from '@kb/db/testing';
import type { SetupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { CACHING, MENUS, MENUS_FR, questionsOf } from './faq-fixtures.ts';
import { startMockServer } from './msw.ts';

const kinds = await testStoreKinds();

describe.each(kinds)('GET /api/v1/faq, built-in writer (%s)', (kind) => {
  let service: TestService;
  let mock: SetupServer;
  let admin: string;
  let menusId: string;
  const faq = (query: string, headers: Record<string, string> = {}) => service.api(`/api/v1/faq${query}`, { headers });
  const ingest = (body: unknown) => service.api('/api/v1/ingest/md', { method: 'POST', key: admin, json: body }).then(json);

  beforeAll(async () => {
    mock = startMockServer();
    // This FAQ draws on the wiki too: the operator named it.
    service = await startTestService(kind, { env: { KB_FAQ_RATE_LIMIT_PER_MINUTE: '1000', KB_FAQ_NAMESPACES: 'user_docs,tech_docs,api_endpoints,wiki' } });
    admin = (await service.createKey({ admin: true })).key;
    menusId = (await ingest({ title: 'Menus', slug: 'menus', namespace: 'user_docs', content: MENUS, metadata: { url: 'https://docs.example.com/menus/' } })).documentId;
    await ingest({ title: 'Caching', slug: 'caching', namespace: 'tech_docs', content: CACHING });
    await ingest({ title: 'Menus', slug: 'fr/menus', namespace: 'wiki', content: MENUS_FR });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });

  it('answers without credentials: 5 to 10 pairs from the knowledge base, sources named and linked', async () => {
    const res = await faq('?q=menus');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
    const body = await json(res);
    expect(body).toMatchObject({ query: 'menus', scope: 'user_docs', language: 'en', cached: false });
    expect(body.sources).toEqual([{ title: 'Menus', documentId: menusId, slug: 'menus', namespace: 'user_docs', url: 'https://docs.example.com/menus/' }]);
    expect(new Date(body.generatedAt).toISOString()).toBe(body.generatedAt);
    const questions = questionsOf(body.content);
    expect(questions.length).toBeGreaterThanOrEqual(5);
    expect(questions.length).toBeLessThanOrEqual(10);
    for (const q of questions) expect(q).toMatch(/\?$/);
    expect(questions).toContain('How do I define menus in front matter?');
    expect(questions).toContain('How do I render menus?');
    expect(body.content).toContain("To add a page to the main menu, set `menus = 'main'` in the front matter of the page.");
    expect(body.content).toContain('Sources: [Menus](https://docs.example.com/menus/)');
  });

  it('serves the same FAQ from the cache for the same normalised topic', async () => {
    const first = await json(await faq('?q=render%20hooks%20menus'));
    const again = await json(await faq(`?q=${encodeURIComponent('  RENDER\u00a0hooks   Menus ')}`));
    expect(again).toMatchObject({ cached: true, content: first.content, generatedAt: first.generatedAt, sources: first.sources });
    expect(again.query).toBe('RENDER\u00a0hooks   Menus');
    // Another scope or language is another FAQ.
    expect((await json(await faq('?q=render%20hooks%20menus&source=all'))).cached).toBe(false);
    expect((await json(await faq('?q=render%20hooks%20menus&lang=de'))).cached).toBe(false);
  });

  it('answers 404 when the scope holds nothing about the topic, and caches nothing', async () => {
    for (const query of ['?q=kubernetes%20helm%20charts', '?q=cache%20lifetime', '?q=the']) {
      const res = await faq(query);
      expect(res.status, query).toBe(404);
      expect(await json(res)).toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/^Nothing in the user_docs namespace is about/) });
    }
    const rows = await service.services.database.db.selectFrom('faq_cache').select('query').execute();
    expect(rows.map((r) => r.query)).not.toContain('cache lifetime');
    // The page is in tech_docs.
    const tech = await faq('?q=cache%20lifetime&source=tech_docs');
    expect(tech.status).toBe(200);
    expect((await json(tech)).sources.map((s: { slug: string }) => s.slug)).toEqual(['caching']);
  });

  it('refuses bad parameters with 400, naming them', async () => {
    const cases: Array<[string, RegExp]> = [
      ['', /q/],
      ['?q=', /q must not be empty/],
      ['?q=%20%20%20', /q must not be empty/],
      [`?q=${'a'.repeat(501)}`, /at most 500/],
      ['?q=menus&source=blog', /must be one of user_docs, tech_docs, api_endpoints, wiki, all/],
      ['?q=menus&lang=english!', /BCP 47/],
      ['?q=menus&limit=5', /limit/],
      ['?q=menus&q=other', /q/],
      ['?q=a%00b', /NUL character/],
      ['?q=menus&source=', /must be one of/],
    ];
    for (const [query, message] of cases) {
      const res = await faq(query);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(await json(res)), query).toMatch(message);
    }
    expect((await faq(`?q=${'a'.repeat(495)}%20%20%20%20%20%20`)).status).not.toBe(400);
  });

  it('detects the language from the topic, or takes lang', async () => {
    const fr = await json(await faq(`?q=${encodeURIComponent('Comment définir les menus ?')}&source=wiki`));
    expect(fr.language).toBe('fr');
    expect(questionsOf(fr.content)).toEqual(expect.arrayContaining(['Comment définir les menus ?', 'Comment afficher les menus ?']));
    expect((await json(await faq('?q=menus&lang=PT-br'))).language).toBe('pt-BR');
  });

  it('makes the FAQ again when a source document changed or was deleted', async () => {
    const page = { title: 'Taxonomies', slug: 'taxonomies', namespace: 'user_docs' };
    const content = (extra: string) =>
      `# Taxonomies\n\n## Define taxonomies\n\nTo define a taxonomy, list it under the taxonomies key.${extra}\n\n## Render taxonomies\n\nTo render the terms of a taxonomy, range over them in a template.\n`;
    const { documentId } = await ingest({ ...page, content: content('') });
    const first = await json(await faq('?q=taxonomies'));
    expect(first.cached).toBe(false);
    expect((await json(await faq('?q=taxonomies'))).cached).toBe(true);

    await ingest({ ...page, content: content(' Taxonomies are case sensitive.') });
    const changed = await json(await faq('?q=taxonomies'));
    expect(changed.cached).toBe(false);
    expect(changed.content).toContain('Taxonomies are case sensitive.');
    expect((await json(await faq('?q=taxonomies'))).cached).toBe(true);

    await service.services.database.db.deleteFrom('documents').where('id', '=', documentId).execute();
    expect((await faq('?q=taxonomies')).status).toBe(404);
  });

  it('makes an FAQ once for concurrent identical requests', async () => {
    const topic = `menus ${randomBytes(3).toString('hex')}`;
    const bodies = await Promise.all(Array.from({ length: 6 }, () => faq(`?q=${encodeURIComponent(topic)}`).then(json)));
    expect(bodies.filter((b) => b.cached === false)).toHaveLength(1);
    expect(new Set(bodies.map((b) => b.content)).size).toBe(1);
    expect(new Set(bodies.map((b) => b.generatedAt)).size).toBe(1);
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await service.api('/api/v1/faq?q=menus', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
});

// Embedded mode counts in memory; services mode (PostgreSQL) counts in Redis, under its own queue prefix.
const limitSetups = kinds.map((kind) => ({ kind, redis: kind === 'postgres' }));

describe.each(limitSetups)('GET /api/v1/faq limits per client address ($kind, redis: $redis)', ({ kind, redis }) => {
  let service: TestService;
  let mock: SetupServer;
  const prefix = `faqtest${randomBytes(4).toString('hex')}`;
  const faq = (q: string, from?: string) => service.api(`/api/v1/faq?q=${encodeURIComponent(q)}`, { headers: from ? { 'x-forwarded-for': from } : {} });

  beforeAll(async () => {
    mock = startMockServer();
    service = await startTestService(kind, {
      redis,
      env: { KB_FAQ_RATE_LIMIT_PER_MINUTE: '2', KB_FAQ_HIT_RATE_LIMIT_PER_MINUTE: '6', KB_TRUST_PROXY: 'true', KB_QUEUE_PREFIX: prefix },
    });
    const { key } = await service.createKey({ admin: true });
    await service.api('/api/v1/ingest/md', { method: 'POST', key, json: { title: 'Menus', slug: 'menus', namespace: 'user_docs', content: MENUS } });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });

  it('limits misses per address (X-Forwarded-For behind a trusted proxy), serves hits, then limits all requests generously', async () => {
    const first = await faq('menus', '203.0.113.5');
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    // The proxy appends the address it saw: what the client wrote to the left is not its address.
    expect((await faq('render menus', '198.51.100.99, 203.0.113.5')).status).toBe(200);
    const blocked = await faq('localize menus', '203.0.113.5');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(blocked.headers.get('ratelimit-limit')).toBe('2');
    expect(blocked.headers.get('ratelimit-remaining')).toBe('0');
    expect(await json(blocked)).toMatchObject({ code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/new FAQ topics/) });
    // Hits are still served, under the generous limit (6 a minute: the 3 above count too).
    const hit = await faq('menus', '203.0.113.5');
    expect(hit.status).toBe(200);
    expect((await json(hit)).cached).toBe(true);
    expect(hit.headers.get('ratelimit-limit')).toBe('6');
    expect((await faq('menus', '203.0.113.5')).status).toBe(200);
    expect((await faq('menus', '203.0.113.5')).status).toBe(200);
    expect((await faq('menus', '203.0.113.5')).status).toBe(429);
    // Another address has its own budget.
    expect((await faq('localize menus', '198.51.100.7')).status).toBe(200);
  });
});

describe('GET /api/v1/faq with the default settings, without a trusted proxy', () => {
  let service: TestService;
  let mock: SetupServer;
  beforeAll(async () => {
    mock = startMockServer();
    service = await startTestService('pglite', { env: { KB_FAQ_RATE_LIMIT_PER_MINUTE: '1' } });
    const { key } = await service.createKey({ admin: true });
    await service.api('/api/v1/ingest/md', { method: 'POST', key, json: { title: 'Menus', slug: 'menus', namespace: 'user_docs', content: MENUS } });
    await service.api('/api/v1/ingest/md', {
      method: 'POST',
      key,
      json: { title: 'Staging access', slug: 'staging', namespace: 'wiki', content: '# Staging access\n\nThe staging password is hunter2-internal. Ask the platform team to rotate the staging password.\n' },
    });
  });

  it('keeps the internal wiki out of the anonymous FAQ unless KB_FAQ_NAMESPACES names it', async () => {
    const wiki = await service.api('/api/v1/faq?q=staging%20password&source=wiki');
    expect(wiki.status).toBe(403);
    const body = await wiki.text();
    expect(body).toMatch(/KB_FAQ_NAMESPACES/);
    expect(body).not.toContain('hunter2');
  });
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });

  it('counts the connection’s address, whatever X-Forwarded-For says', async () => {
    expect((await service.api('/api/v1/faq?q=menus', { headers: { 'x-forwarded-for': '203.0.113.1' } })).status).toBe(200);
    expect((await service.api('/api/v1/faq?q=render%20menus', { headers: { 'x-forwarded-for': '203.0.113.2' } })).status).toBe(429);
  });
});
