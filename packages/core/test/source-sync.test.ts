import { stopWorkerPool } from '@kb/content';
import { pdfKitPdf, pdfLibPdf, scannedPdf } from '@kb/content/testing';
import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DocumentsService } from '../src/documents/documents.service.ts';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import type { Embedder, EmbeddingInputType } from '../src/embeddings/types.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { InProcessJobQueue } from '../src/jobs/in-process-queue.ts';
import { JobRunner } from '../src/jobs/job-runner.ts';
import { JobsRepository, toJobView } from '../src/jobs/jobs.repository.ts';
import { createLogger } from '../src/logger.ts';
import { SOURCE_USER_AGENT } from '../src/sources/robots.ts';
import { createSourceSyncHandler, SourcesService } from '../src/sources/sources.service.ts';
import { SourcesRepository } from '../src/sources/sources.repository.ts';
import type { Clock, CrawlLimits } from '../src/sources/website-sync.ts';
import { htmlPage, sitemapXml, startFakeSite, type FakeSite } from './fakes/fake-site.ts';

const kinds = await testStoreKinds();
const logger = createLogger({ level: 'silent' });
afterAll(() => stopWorkerPool());

class CountingEmbedder implements Embedder {
  readonly inner = new LocalEmbedder();
  readonly model = this.inner.model;
  readonly dimension = this.inner.dimension;
  // The built-in embedder is used in-thread here (not the worker pool), so every call is counted.
  readonly inProcess = false;
  calls = 0;
  async embed(texts: readonly string[], inputType: EmbeddingInputType) {
    if (inputType === 'document') this.calls++;
    return this.inner.embed(texts, inputType);
  }
}

/** A clock whose sleeps are recorded and take no time. */
function fakeClock(): Clock & { sleeps: number[] } {
  let now = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: (ms) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

function topicPage(n: number, links: number[] = [], extra = ''): string {
  return htmlPage(
    `Guide ${n}`,
    `<p>Guide number ${n} explains the ${['billing', 'search', 'storage', 'routing', 'alerts'][n % 5]} subsystem in detail.</p>` +
      `<pre><code class="language-bash">kbctl guide-${n} --apply</code></pre>` +
      links.map((l) => `<a href="/docs/guide-${l}">Guide ${l}</a>`).join(' ') +
      extra,
  );
}

describe.each(kinds)('website sources on %s', (kind) => {
  let site: FakeSite;
  let testDb: TestDatabase;
  let embedder: CountingEmbedder;
  let ingestion: IngestionService;
  let jobs: JobsRepository;
  let repo: SourcesRepository;
  let service: SourcesService;
  let queue: InProcessJobQueue;
  let clock: ReturnType<typeof fakeClock>;
  let limits: CrawlLimits;
  let maxBytes: number;
  let maxBinaryBytes: number;

  beforeEach(async () => {
    site = await startFakeSite();
    testDb = await createTestDatabase(kind);
    embedder = new CountingEmbedder();
    ingestion = new IngestionService(testDb.database, embedder, logger);
    jobs = new JobsRepository(testDb.database.db);
    repo = new SourcesRepository(testDb.database.db);
    clock = fakeClock();
    limits = { hostConcurrency: 2, minIntervalMs: 0, maxSyncMs: 60_000 };
    maxBytes = 10 * 1024 * 1024;
    maxBinaryBytes = 25 * 1024 * 1024;
    const handler = createSourceSyncHandler({
      sources: repo,
      ingestion,
      get fetch() {
        return { allowPrivate: true, maxBytes, maxBinaryBytes, timeoutMs: 10_000, maxRedirects: 3 };
      },
      get limits() {
        return limits;
      },
      clock,
    });
    const runner = new JobRunner(jobs, { 'source-sync': handler }, logger);
    queue = new InProcessJobQueue(runner, jobs, logger, { attempts: 1, backoffMs: 1 });
    service = new SourcesService(repo, jobs, queue, ingestion, logger);
  });
  afterEach(async () => {
    await queue.close();
    await site.close();
    await testDb.drop();
  });

  function serveDocs(count: number, options: { lastmod?: string } = {}) {
    for (let n = 0; n < count; n++) site.routes.set(`/docs/guide-${n}`, { body: topicPage(n, [(n + 1) % count]) });
    site.routes.set(
      '/sitemap.xml',
      { body: sitemapXml(Array.from({ length: count }, (_, n) => ({ loc: `${site.url}/docs/guide-${n}`, ...(options.lastmod ? { lastmod: options.lastmod } : {}) }))), contentType: 'application/xml' },
    );
  }

  async function sync(id: string) {
    const started = await service.syncNow(id);
    await queue.whenIdle();
    const job = toJobView((await jobs.get(started!.jobId))!);
    return { job, source: await service.get(id) };
  }

  async function documentsOf(sourceId: string) {
    return (await new DocumentsService(testDb.database, logger).list({ sourceId, limit: 200 })).documents;
  }

  it('brings a site in from its sitemap, then an unchanged site costs no embedding call', async () => {
    serveDocs(6);
    const created = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 } });
    expect(created.status).toBe('idle');
    expect(created.lastSync).toBeNull();

    const first = await sync(created.id);
    expect(first.job.status).toBe('done');
    expect(first.source.lastSync).toMatchObject({ status: 'done', error: null, pages: { discovered: 6, fetched: 6, updated: 6, unchanged: 0, removed: 0, failed: 0 } });
    const callsAfterFirst = embedder.calls;
    expect(callsAfterFirst).toBe(6);
    const docs = await documentsOf(created.id);
    expect(docs).toHaveLength(6);
    expect(docs.every((d) => d.sourceId === created.id && d.url?.startsWith(`${site.url}/docs/guide-`))).toBe(true);
    expect(site.userAgents).toEqual(new Set([SOURCE_USER_AGENT]));

    const second = await sync(created.id);
    expect(second.source.lastSync).toMatchObject({ status: 'done', pages: { discovered: 6, fetched: 6, unchanged: 6, updated: 0, removed: 0, failed: 0 } });
    expect(embedder.calls).toBe(callsAfterFirst);
    expect(site.notModified).toBe(6);
    expect(await documentsOf(created.id)).toHaveLength(6);
  });

  it('skips fetching pages whose sitemap lastmod is unchanged, and re-embeds only a changed page', async () => {
    serveDocs(4, { lastmod: '2026-11-01' });
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 } });
    await sync(id);
    const fetchedBefore = site.requests.get('/docs/guide-1');
    site.routes.set('/docs/guide-2', { body: topicPage(2, [], '<p>A new paragraph about quotas.</p>') });
    site.routes.set(
      '/sitemap.xml',
      { body: sitemapXml([0, 1, 2, 3].map((n) => ({ loc: `${site.url}/docs/guide-${n}`, lastmod: n === 2 ? '2026-11-20' : '2026-11-01' }))), contentType: 'application/xml' },
    );
    const calls = embedder.calls;
    const { source } = await sync(id);
    expect(source.lastSync?.pages).toMatchObject({ discovered: 4, fetched: 1, unchanged: 3, updated: 1 });
    expect(site.requests.get('/docs/guide-1')).toBe(fetchedBefore);
    expect(embedder.calls).toBe(calls + 1);
  });

  it('removes a page answering 404 at once, and one gone from the sitemap after two syncs running', async () => {
    serveDocs(5);
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 } });
    await sync(id);
    expect(await documentsOf(id)).toHaveLength(5);

    site.routes.delete('/docs/guide-0'); // 404
    site.routes.set('/sitemap.xml', { body: sitemapXml([0, 1, 2, 3].map((n) => ({ loc: `${site.url}/docs/guide-${n}` }))), contentType: 'application/xml' });
    const once = await sync(id);
    expect(once.source.lastSync?.pages.removed).toBe(1);
    const afterOne = (await documentsOf(id)).map((d) => d.url).sort();
    expect(afterOne).toEqual([1, 2, 3, 4].map((n) => `${site.url}/docs/guide-${n}`));

    const twice = await sync(id);
    expect(twice.source.lastSync?.pages.removed).toBe(1);
    const left = (await documentsOf(id)).map((d) => d.url).sort();
    expect(left).toEqual([1, 2, 3].map((n) => `${site.url}/docs/guide-${n}`));
    const chunks = await sql<{ n: string }>`select count(*) as n from chunks c left join documents d on d.id = c.document_id where d.id is null`.execute(testDb.database.db);
    expect(Number(chunks.rows[0]!.n)).toBe(0);
  });

  it('follows links within scope, bounded by depth, page cap, query-string variants and loops', async () => {
    site.routes.set('/docs/', { body: htmlPage('Start', '<p>Start here for the documentation of the service.</p><a href="/docs/a">A</a><a href="/blog/x">Blog</a><a href="https://elsewhere.example/docs/">Out</a><a href="/docs/calendar?month=1">Calendar</a>') });
    site.routes.set('/docs/a', { body: htmlPage('A', '<p>Page A describes the first part of the setup process.</p><a href="/docs/b">B</a><a href="/docs/">Back</a>') });
    site.routes.set('/docs/b', { body: htmlPage('B', '<p>Page B describes the second part of the setup process.</p><a href="/docs/a">A</a><a href="/docs/c">C</a>') });
    site.routes.set('/docs/c', { body: htmlPage('C', '<p>Page C is deeper than the depth allows.</p>') });
    site.routes.set('/docs/calendar', {
      dynamic: (_, url) => {
        const month = Number(url.searchParams.get('month'));
        return { body: htmlPage(`Month ${month}`, `<p>Calendar for month ${month} of the event schedule.</p><a href="/docs/calendar?month=${month + 1}">Next</a>`) };
      },
    });
    site.routes.set('/blog/x', { body: htmlPage('Blog', '<p>Out of scope.</p>') });
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { startUrl: `${site.url}/docs/`, pathPrefix: '/docs/', maxDepth: 2 } });
    const { source } = await sync(id);
    expect(source.lastSync?.status).toBe('done');
    const urls = (await documentsOf(id)).map((d) => d.url!.slice(site.url.length)).sort();
    // Depth 2: start (0), a and calendar?month=1 (1), b and month=2 (2); c is at depth 3.
    expect(urls).toEqual(['/docs/', '/docs/a', '/docs/b', '/docs/calendar?month=1', '/docs/calendar?month=2']);
    expect(site.requests.get('/blog/x')).toBeUndefined();
    expect(site.requests.get('/docs/a')).toBe(1);

    // Without a depth bound, the calendar trap stops at the query-variant bound.
    await service.update(id, { settings: { startUrl: `${site.url}/docs/`, pathPrefix: '/docs/', maxDepth: 50 } });
    await sync(id);
    const months = [...site.requests.keys()].filter((k) => k.startsWith('/docs/calendar?'));
    expect(months.length).toBeLessThanOrEqual(5);

    // And a page cap bounds everything.
    await service.update(id, { settings: { startUrl: `${site.url}/docs/`, pathPrefix: '/docs/', maxDepth: 50, maxPages: 2 } });
    const capped = await sync(id);
    expect(capped.source.lastSync?.pages.discovered).toBe(2);
    expect(capped.source.lastSync?.status).toBe('partial');
    expect(capped.source.lastSync?.error).toMatch(/page cap \(2\)/);
    // A capped sync removes nothing.
    expect((await documentsOf(id)).length).toBeGreaterThanOrEqual(5);
  });

  it('collapses redirects and canonical links into one document', async () => {
    site.routes.set('/docs/', {
      body: htmlPage('Start', '<p>The start page of the docs.</p><a href="/docs/old">Old</a><a href="/docs/new">New</a><a href="/docs/print?id=7">Print</a>'),
    });
    site.routes.set('/docs/old', { location: '/docs/new' });
    site.routes.set('/docs/new', { body: htmlPage('New', '<p>The new page about rotating keys safely.</p>') });
    site.routes.set('/docs/print', { body: htmlPage('Print', '<p>The new page about rotating keys safely.</p>', `<link rel="canonical" href="${site.url}/docs/new">`) });
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { startUrl: `${site.url}/docs/` } });
    await sync(id);
    const urls = (await documentsOf(id)).map((d) => d.url!.slice(site.url.length)).sort();
    expect(urls).toEqual(['/docs/', '/docs/new']);
    // The home page the navigation links to does not exist: a broken link, listed.
    expect((await service.failures(id, {})).failures).toEqual([expect.objectContaining({ url: `${site.url}/`, reason: 'the server answered 404 Not Found', httpStatus: 404 })]);
  });

  it('honours robots.txt rules and crawl-delay, and says so when everything is forbidden', async () => {
    serveDocs(3);
    site.routes.set('/robots.txt', { body: 'User-agent: *\nDisallow: /docs/guide-1\nCrawl-delay: 2\n', contentType: 'text/plain' });
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 } });
    const { source } = await sync(id);
    expect(site.requests.get('/docs/guide-1')).toBeUndefined();
    expect(source.lastSync?.pages).toMatchObject({ updated: 2, failed: 1 });
    const { failures } = await service.failures(id, {});
    expect(failures).toEqual([expect.objectContaining({ url: `${site.url}/docs/guide-1`, reason: expect.stringMatching(/robots\.txt disallows it/) })]);
    // One request at a time, 2 s apart (sitemap and two pages after robots.txt).
    expect(clock.sleeps.length).toBeGreaterThanOrEqual(3);
    expect(clock.sleeps.every((ms) => ms >= 2_000 - 1)).toBe(true);

    site.routes.set('/robots.txt', { body: 'User-agent: *\nDisallow: /\n', contentType: 'text/plain' });
    const forbidden = await sync(id);
    expect(forbidden.job.status).toBe('failed');
    expect(forbidden.source.lastSync).toMatchObject({ status: 'failed', error: expect.stringMatching(/robots\.txt forbids every page/) });
    // Nothing is lost.
    expect(await documentsOf(id)).toHaveLength(2);
  });

  it('says a page was refused because robots.txt answered a server error, not because its rules forbid it', async () => {
    serveDocs(2);
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 } });
    await sync(id);
    site.routes.set('/robots.txt', { body: 'down', contentType: 'text/plain', status: 503 });
    const { source } = await sync(id);
    expect(source.lastSync?.status).toBe('failed');
    const { failures } = await service.failures(id, {});
    expect(failures.length).toBe(2);
    for (const failure of failures) expect(failure.reason).toBe('robots.txt answered 503: the host is not crawled this sync (RFC 9309)');
    expect(await documentsOf(id)).toHaveLength(2);
  });

  it("lists only the last sync's failures: a broken link fixed since is not listed again", async () => {
    site.routes.set('/docs/', { body: htmlPage('Start', '<p>The start page of the docs.</p><a href="/docs/a">A</a><a href="/docs/gone">Gone</a>') });
    site.routes.set('/docs/a', { body: htmlPage('A', '<p>Page A describes the first part of the setup process.</p>') });
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { startUrl: `${site.url}/docs/`, pathPrefix: '/docs/' } });
    const first = await sync(id);
    expect(first.source.lastSync?.pages.failed).toBe(1);
    expect((await service.failures(id, {})).failures).toEqual([expect.objectContaining({ url: `${site.url}/docs/gone`, httpStatus: 404 })]);
    // The broken link is taken off the page: the next syncs have no failure, and list none.
    site.routes.set('/docs/', { body: htmlPage('Start', '<p>The start page of the docs, fixed.</p><a href="/docs/a">A</a>') });
    for (let i = 0; i < 2; i++) {
      const { source } = await sync(id);
      expect(source.lastSync).toMatchObject({ status: 'done', pages: expect.objectContaining({ failed: 0 }) });
      expect((await service.failures(id, {})).failures).toEqual([]);
    }
  });

  it('answers an unreachable start URL clearly', async () => {
    const port = new URL(site.url).port;
    await site.close();
    const { id } = await service.create({ kind: 'website', name: 'Down', namespace: 'user_docs', settings: { startUrl: `http://127.0.0.1:${port}/docs/` } });
    const { job, source } = await sync(id);
    expect(job.status).toBe('failed');
    expect(source.lastSync?.error).toMatch(/^http:\/\/127\.0\.0\.1:\d+ could not be reached: connection refused/);
    site = await startFakeSite();
  });

  it('refuses a sitemap that is not XML, and one that is an XML bomb, without expanding it', async () => {
    site.routes.set('/sitemap.xml', { body: '<html><body>Not a sitemap</body>', contentType: 'application/xml' });
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml` } });
    const bad = await sync(id);
    expect(bad.source.lastSync).toMatchObject({ status: 'failed', error: expect.stringMatching(/sitemap.*(not well-formed XML|not a sitemap)/) });

    const lol = Array.from({ length: 10 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('\n');
    const bomb = `<?xml version="1.0"?>\n<!DOCTYPE urlset [\n<!ENTITY lol0 "lol">\n${lol}\n]>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>&lol10;</loc></url></urlset>`;
    site.routes.set('/sitemap.xml', { body: bomb, contentType: 'application/xml' });
    const heapBefore = process.memoryUsage().heapUsed;
    const bombed = await sync(id);
    expect(bombed.source.lastSync).toMatchObject({ status: 'failed', error: expect.stringMatching(/DOCTYPE/) });
    // 10^10 "lol"s would be 30 GB: nothing near that was allocated.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(500 * 1024 * 1024);

    // With a start URL too, link following goes on and the sitemap is a listed failure.
    site.routes.set('/docs/', { body: htmlPage('Start', '<p>The start page of the documentation site.</p>') });
    await service.update(id, { settings: { sitemapUrl: `${site.url}/sitemap.xml`, startUrl: `${site.url}/docs/`, pathPrefix: '/docs/' } });
    const mixed = await sync(id);
    expect(mixed.source.lastSync).toMatchObject({ status: 'partial', pages: { updated: 1, failed: 1 } });
    const { failures } = await service.failures(id, {});
    expect(failures[0]).toMatchObject({ url: `${site.url}/sitemap.xml`, reason: expect.stringMatching(/DOCTYPE/) });
  });

  it('keeps every stored page when the site answers 500 on every other page, and lists the failures', async () => {
    serveDocs(6);
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 } });
    await sync(id);
    for (const n of [1, 3, 5]) site.routes.set(`/docs/guide-${n}`, { status: 500, body: 'oops', etag: false });
    const { source } = await sync(id);
    expect(source.lastSync).toMatchObject({ status: 'partial', pages: { failed: 3, unchanged: 3, removed: 0 } });
    expect(await documentsOf(id)).toHaveLength(6);
    const { failures } = await service.failures(id, { limit: 2 });
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({ url: `${site.url}/docs/guide-1`, reason: 'the server answered 500 Internal Server Error', httpStatus: 500 });
    const page2 = await service.failures(id, { limit: 2, cursor: (await service.failures(id, { limit: 2 })).nextCursor! });
    expect(page2.failures.map((f) => f.url)).toEqual([`${site.url}/docs/guide-5`]);
    // Failing twice running does not make a page "missing".
    await sync(id);
    expect(await documentsOf(id)).toHaveLength(6);
  });

  it('reports a redirect loop and a 50 MB page as failures with their reasons', async () => {
    site.routes.set('/docs/', { body: htmlPage('Start', '<p>The start page.</p><a href="/docs/loop-a">Loop</a><a href="/docs/huge">Huge</a>') });
    site.routes.set('/docs/loop-a', { location: '/docs/loop-b' });
    site.routes.set('/docs/loop-b', { location: '/docs/loop-a' });
    site.routes.set('/docs/huge', { streamBytes: 50 * 1024 * 1024 });
    maxBytes = 1024 * 1024;
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { startUrl: `${site.url}/docs/`, pathPrefix: '/docs/' } });
    const { source } = await sync(id);
    expect(source.lastSync).toMatchObject({ status: 'partial', pages: { updated: 1, failed: 2 } });
    const reasons = Object.fromEntries((await service.failures(id, {})).failures.map((f) => [f.url.slice(site.url.length), f.reason]));
    expect(reasons['/docs/loop-a']).toMatch(/redirect/i);
    expect(reasons['/docs/huge']).toMatch(/too large/);
  });

  it('starts over after an interrupted sync without duplicating anything', async () => {
    serveDocs(8);
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 } });
    // The process stops after the third page has been ingested.
    let pages = 0;
    const original = embedder.embed.bind(embedder);
    embedder.embed = async (texts, type) => {
      if (type === 'document' && ++pages === 3) void queue.close();
      return original(texts, type);
    };
    const started = await service.syncNow(id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await queue.close();
    const handedBack = toJobView((await jobs.get(started!.jobId))!);
    expect(handedBack.status).toBe('pending');
    embedder.embed = original;
    // A new process resumes it.
    const handler = createSourceSyncHandler({ sources: repo, ingestion, fetch: { allowPrivate: true, maxBytes, timeoutMs: 10_000, maxRedirects: 3 }, limits, clock });
    queue = new InProcessJobQueue(new JobRunner(jobs, { 'source-sync': handler }, logger), jobs, logger, { attempts: 1 });
    await queue.start();
    await queue.whenIdle();
    expect(toJobView((await jobs.get(started!.jobId))!).status).toBe('done');
    const docs = await documentsOf(id);
    expect(docs).toHaveLength(8);
    const slugs = await sql<{ n: string }>`select count(distinct slug) as n from documents`.execute(testDb.database.db);
    expect(Number(slugs.rows[0]!.n)).toBe(8);
  });

  it('runs one sync of a source at a time and validates settings by kind', async () => {
    serveDocs(1);
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml` } });
    // A queue that runs nothing: the first sync stays pending.
    service = new SourcesService(repo, jobs, { kind: 'in-process', enqueue: () => Promise.resolve(), close: () => Promise.resolve() }, ingestion, logger);
    const first = await service.syncNow(id);
    await expect(service.syncNow(id)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(first!.jobId) });
    expect((await service.get(id)).status).toBe('queued');
    await expect(service.create({ kind: 'website', name: 'x', namespace: 'user_docs', settings: {} })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/startUrl, sitemapUrl or both/) });
    await expect(service.create({ kind: 'website', name: 'x', namespace: 'user_docs', settings: { startUrl: 'ftp://x/' } })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/settings\.startUrl: must be an absolute http or https URL/) });
    await expect(service.create({ kind: 'ftp', name: 'x', namespace: 'user_docs', settings: {} })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(service.get('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('brings in PDFs linked from pages and listed in the sitemap, page by page, and a PDF that cannot be read is a listed failure', { timeout: 120_000 }, async () => {
    const guide = await pdfLibPdf(3, { title: 'Key rotation guide' });
    const whole = await pdfLibPdf(2);
    site.routes.set('/docs/', {
      body: htmlPage(
        'Start',
        '<p>The manuals of the service, as PDFs.</p>' +
          ['guide.pdf', 'download.pdf', 'locked.pdf', 'scan.pdf', 'broken.pdf', 'fake.pdf', 'big.pdf', 'mislabelled'].map((f) => `<a href="/docs/${f}">${f}</a>`).join(' '),
      ),
    });
    site.routes.set('/', { location: '/docs/' });
    site.routes.set('/docs/guide.pdf', { body: guide, contentType: 'application/pdf' });
    // A download a server sends without its type, and one without any type, listed only in the sitemap.
    site.routes.set('/docs/download.pdf', { body: await pdfKitPdf(2), contentType: 'application/octet-stream' });
    site.routes.set('/files/manual.pdf', { body: whole, contentType: null });
    site.routes.set('/sitemap.xml', { body: sitemapXml([{ loc: `${site.url}/docs/` }, { loc: `${site.url}/files/manual.pdf` }]), contentType: 'application/xml' });
    site.routes.set('/docs/locked.pdf', { body: await pdfKitPdf(1, { userPassword: 'secret' }), contentType: 'application/pdf' });
    site.routes.set('/docs/scan.pdf', { body: await scannedPdf(), contentType: 'application/pdf' });
    site.routes.set('/docs/broken.pdf', { body: whole.subarray(0, Math.floor(whole.length / 3)), contentType: 'application/pdf' });
    // The declared type is not trusted: HTML called a PDF, and a PDF called HTML.
    site.routes.set('/docs/fake.pdf', { body: htmlPage('Fake', '<p>Not a PDF at all.</p>'), contentType: 'application/pdf' });
    site.routes.set('/docs/mislabelled', { body: guide, contentType: 'text/html' });
    maxBinaryBytes = 64 * 1024;
    site.routes.set('/docs/big.pdf', { body: new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(128 * 1024, 0x20)])), contentType: 'application/pdf' });

    const { id } = await service.create({ kind: 'website', name: 'Manuals', namespace: 'user_docs', settings: { startUrl: `${site.url}/docs/`, sitemapUrl: `${site.url}/sitemap.xml` } });
    const first = await sync(id);
    expect(first.job.status).toBe('done');
    expect(first.source.lastSync).toMatchObject({ status: 'partial', pages: { updated: 4, failed: 6 } });
    const docs = await documentsOf(id);
    expect(docs.map((d) => d.url!.slice(site.url.length)).sort()).toEqual(['/docs/', '/docs/download.pdf', '/docs/guide.pdf', '/files/manual.pdf']);
    const guideDoc = docs.find((d) => d.url === `${site.url}/docs/guide.pdf`)!;
    expect(guideDoc.title).toBe('Key rotation guide');
    expect(guideDoc.metadata).toMatchObject({ format: 'pdf', pages: 3, url: `${site.url}/docs/guide.pdf` });
    // Each chunk keeps its page, so a citation points at url#page=N.
    const chunks = await sql<{ page: number | null; content: string }>`select page, content from chunks where document_id = ${guideDoc.id} order by page`.execute(testDb.database.db);
    expect(new Set(chunks.rows.map((c) => c.page))).toEqual(new Set([1, 2, 3]));
    expect(chunks.rows.find((c) => c.page === 2)!.content).toContain('Page 2 line 3: rotate the key');
    expect(chunks.rows.some((c) => c.content.includes('kb:page'))).toBe(false);

    const reasons = Object.fromEntries((await service.failures(id, {})).failures.map((f) => [f.url.slice(site.url.length), f.reason]));
    expect(reasons).toEqual({
      '/docs/locked.pdf': expect.stringMatching(/^The file could not be read: The PDF is encrypted/),
      '/docs/scan.pdf': expect.stringMatching(/^The file could not be read: The PDF has no text layer.*OCR is not supported/),
      '/docs/broken.pdf': expect.stringMatching(/^The file could not be read: The PDF could not be read/),
      '/docs/fake.pdf': expect.stringMatching(/^The file could not be read: The content is .*not a PDF as declared/),
      '/docs/mislabelled': 'The content is a PDF, not text/html as declared',
      '/docs/big.pdf': 'too large: the file is larger than the limit of 65536 bytes (KB_MAX_FILE_BYTES)',
    });

    // Unchanged: the PDFs are answered 304 and nothing is converted or embedded again.
    const calls = embedder.calls;
    const notModified = site.notModified;
    const second = await sync(id);
    expect(second.source.lastSync?.pages).toMatchObject({ updated: 0, failed: 6 });
    expect(embedder.calls).toBe(calls);
    expect(site.notModified - notModified).toBeGreaterThanOrEqual(4);

    // A changed PDF is converted and embedded again, alone; one gone from the site is removed.
    site.routes.set('/docs/guide.pdf', { body: await pdfLibPdf(4, { title: 'Key rotation guide' }), contentType: 'application/pdf' });
    site.routes.delete('/files/manual.pdf');
    const third = await sync(id);
    expect(third.source.lastSync?.pages).toMatchObject({ updated: 1, removed: 1 });
    expect(embedder.calls).toBe(calls + 1);
    expect((await documentsOf(id)).find((d) => d.url === `${site.url}/docs/guide.pdf`)!.metadata).toMatchObject({ pages: 4 });
  });

  it('deletes a source with or without its documents', async () => {
    serveDocs(3);
    const keep = await service.create({ kind: 'website', name: 'Keep', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 } });
    await sync(keep.id);
    await service.delete(keep.id, { documents: false });
    expect(await new DocumentsService(testDb.database, logger).list({ namespace: 'user_docs' })).toMatchObject({ total: 3 });
    const drop = await service.create({ kind: 'website', name: 'Drop', namespace: 'tech_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 } });
    await sync(drop.id);
    expect(await service.delete(drop.id, { documents: true })).toMatchObject({ deleted: true, documentsRemoved: 3 });
    expect(await new DocumentsService(testDb.database, logger).list({ namespace: 'tech_docs' })).toMatchObject({ total: 0 });
  });

  it('queues due scheduled syncs once (embedded mode schedule)', async () => {
    serveDocs(1);
    const { id } = await service.create({ kind: 'website', name: 'Docs', namespace: 'user_docs', settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 0 }, scheduleMinutes: 60 });
    const created = await service.get(id);
    expect(created.nextSyncAt).not.toBeNull();
    expect(await service.syncDue(new Date())).toBe(0);
    // The sync is held at its sitemap until both checks have run: a sync that ended in between
    // would have set its next time from the real clock, before this simulated hour.
    let release!: () => void;
    site.routes.set('/sitemap.xml', { ...site.routes.get('/sitemap.xml')!, hold: new Promise<void>((resolve) => (release = resolve)) });
    const later = new Date(Date.now() + 61 * 60_000);
    expect(await service.syncDue(later)).toBe(1);
    expect(await service.syncDue(later)).toBe(0);
    release();
    await queue.whenIdle();
    expect((await service.get(id)).lastSync?.status).toBe('done');
  });
});
