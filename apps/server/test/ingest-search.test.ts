import { testStoreKinds } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { securitySuite } from './security.ts';

const kinds = await testStoreKinds();

const PAGE = `# Configure caching

Caching keeps rendered pages in memory.

## Cache lifetime

Set \`cache.ttl\` to the number of seconds a page stays cached. The default is 300 seconds.

## Purging

Call the purge endpoint to drop every cached page at once.
`;

describe.each(kinds)('POST /ingest/md and /search (%s)', (kind) => {
  let service: TestService;
  let key: string;
  beforeAll(async () => {
    service = await startTestService(kind);
    key = (await service.createKey()).key;
  });
  afterAll(() => service?.close());

  const ingest = (body: unknown) => service.api('/api/v1/ingest/md', { method: 'POST', key, json: body });
  const search = (body: unknown) => service.api('/api/v1/search', { method: 'POST', key, json: body });

  it('ingests, skips unchanged content, and finds it with heading paths', async () => {
    const first = await ingest({ title: 'Caching', content: PAGE, namespace: 'user_docs', metadata: { section: 'ops' } });
    expect(first.status).toBe(200);
    const created = await json(first);
    expect(created).toEqual({ documentId: expect.any(String), skipped: false });
    const again = await json(await ingest({ title: 'Caching', content: PAGE, namespace: 'user_docs', metadata: { section: 'ops' } }));
    expect(again).toEqual({ documentId: created.documentId, skipped: true });

    const res = await search({ query: 'how long does a page stay cached ttl seconds' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.count).toBe(body.results.length);
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.length).toBeLessThanOrEqual(5);
    expect(body.results[0]).toEqual({
      chunkId: expect.any(String),
      documentId: created.documentId,
      documentTitle: 'Caching',
      slug: 'Caching', // the title, as no slug was given; no url: the document has no link
      headingPath: 'Caching > Configure caching > Cache lifetime',
      content: expect.stringContaining('cache.ttl'),
      namespace: 'user_docs',
      score: expect.any(Number),
    });
    expect(body.results[0].score).toBeGreaterThan(0);
    expect(body.results[0].score).toBeLessThanOrEqual(1);
  });

  it('filters by one or several namespaces and honours topK', async () => {
    // Its purge passage differs from the user_docs page's: identical passages would collapse to one.
    await ingest({
      title: 'Internal caching',
      content: PAGE.replace('Configure caching', 'Cache internals').replace('Call the purge endpoint', 'Internally, call the purge endpoint'),
      namespace: 'tech_docs',
    });
    const one = await json(await search({ query: 'purge cached pages', source: 'tech_docs', topK: 2 }));
    expect(one.results.length).toBe(2);
    expect(one.results.every((r: { namespace: string }) => r.namespace === 'tech_docs')).toBe(true);
    const both = await json(await search({ query: 'purge cached pages', source: ['tech_docs', 'user_docs'], topK: 20 }));
    expect(new Set(both.results.map((r: { namespace: string }) => r.namespace))).toEqual(new Set(['tech_docs', 'user_docs']));
    const hybrid = await json(await search({ query: 'purge endpoint', mode: 'hybrid', topK: 3 }));
    expect(hybrid.results[0].headingPath).toMatch(/Purging$/);
  });

  it('reads the first 64 distinct words of a hybrid query lexically, however many it holds', async () => {
    expect((await ingest({ title: 'Caching', content: PAGE, namespace: 'user_docs', metadata: { section: 'ops' } })).status).toBe(200);
    const head = ['purge', 'cached', ...Array.from({ length: 62 }, (_, i) => `filler${i}`)];
    const tail = [...Array.from({ length: 1_200 }, (_, i) => `t${i}`), 'lifetime', 'seconds', 'default', 'stays', 'memory', 'rendered'];
    const long = await search({ query: [...head, ...tail].join(' '), mode: 'hybrid', topK: 3 });
    expect(long.status).toBe(200);
    const short = await search({ query: head.join(' '), mode: 'hybrid', topK: 3 });
    const ids = (body: { results: Array<{ chunkId: string }> }) => body.results.map((r) => r.chunkId);
    expect(ids(await json(long))).toEqual(ids(await json(short)));
  });

  it('rejects bad input with 400 naming the field', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/api/v1/ingest/md', { content: 'x', namespace: 'user_docs' }, 'title'],
      ['/api/v1/ingest/md', { title: '', content: 'x', namespace: 'user_docs' }, 'title'],
      ['/api/v1/ingest/md', { title: 't', namespace: 'user_docs' }, 'content'],
      ['/api/v1/ingest/md', { title: 't', content: 5, namespace: 'user_docs' }, 'content'],
      ['/api/v1/ingest/md', { title: 't', content: 'x', namespace: 'elsewhere' }, 'namespace'],
      ['/api/v1/ingest/md', { title: 't', content: 'x' }, 'namespace'],
      ['/api/v1/ingest/md', { title: 't', content: 'x', namespace: 'user_docs', metadata: 'no' }, 'metadata'],
      ['/api/v1/search', {}, 'query'],
      ['/api/v1/search', { query: '   ' }, 'query'],
      ['/api/v1/search', { query: 'x', topK: 0 }, 'topK'],
      ['/api/v1/search', { query: 'x', topK: 21 }, 'topK'],
      ['/api/v1/search', { query: 'x', topK: '5' }, 'topK'],
      ['/api/v1/search', { query: 'x', source: 'nowhere' }, 'source'],
      ['/api/v1/search', { query: 'x', source: ['user_docs', 'nowhere'] }, 'source'],
      ['/api/v1/search', { query: 'x', mode: 'magic' }, 'mode'],
    ];
    for (const [path, body, field] of cases) {
      const res = await service.api(path, { method: 'POST', key, json: body });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      const error = await json(res);
      expect(error.code).toBe('BAD_REQUEST');
      expect(error.issues.map((i: { path: Array<string | number> }) => String(i.path[0]))).toContain(field);
    }
  });

  it('answers 413 for a document over the body limit', async () => {
    const res = await ingest({ title: 'big', namespace: 'user_docs', content: 'x'.repeat(11 * 1024 * 1024) });
    expect(res.status).toBe(413);
  });

  it('handles concurrent ingestion of one document without duplicates', async () => {
    const bodies = Array.from({ length: 6 }, (_, i) => ({ title: 'Concurrent', namespace: 'wiki', content: `# Page\n\nVersion ${i % 2}.` }));
    const results = await Promise.all(bodies.map((b) => ingest(b).then(json)));
    expect(new Set(results.map((r: { documentId: string }) => r.documentId)).size).toBe(1);
    const found = await json(await search({ query: 'version page', source: 'wiki', topK: 20 }));
    expect(found.results).toHaveLength(1);
  });

  describe('security', () => {
    securitySuite(() => service, [
      { procedure: 'ingest.markdown', json: { title: 't', content: 'c', namespace: 'user_docs' } },
      { procedure: 'search', json: { query: 'q' } },
    ]);
  });
});
