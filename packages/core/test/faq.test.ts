import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LanguageDetector } from '../src/answers/language.ts';
import { PassageRetriever } from '../src/answers/passages.ts';
import { LocalReranker } from '../src/answers/rerank.ts';
import { SectionsRepository } from '../src/answers/sections.repository.ts';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { AppError } from '../src/errors.ts';
import { ExtractiveFaqWriter } from '../src/faq/extractive-faq.ts';
import { FaqRepository } from '../src/faq/faq.repository.ts';
import { FAQ_CACHE_TTL_MS, FaqService, type FaqServiceOptions } from '../src/faq/faq.service.ts';
import { FaqLimits, type FaqLimitSettings } from '../src/faq/limits.ts';
import type { FaqWriteInput, FaqWriter } from '../src/faq/types.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { createLogger } from '../src/logger.ts';
import { SlidingWindowRateLimiter } from '../src/ratelimit/rate-limiter.ts';
import { SearchService } from '../src/search/search.service.ts';
import { metrics } from '../src/telemetry/metrics.ts';

const kinds = await testStoreKinds();
const logger = createLogger({ level: 'silent' });

const MENUS = `# Menus

Hugo menus are lists of links that a template renders.

## Define menus in front matter

To add a page to the main menu, set \`menus = 'main'\` in its front matter.

## Render menus

Use the \`site.Menus\` method in a template to render a menu.

## Menu entry properties

Each menu entry has a name, a URL and a weight.

## Localize menus

To translate menu entries, use translation tables.

## Menu weights

Entries are sorted by weight, then by name.
`;

/** The extractive writer, counted, and held until released when `hold` is set. */
class CountingWriter implements FaqWriter {
  calls = 0;
  failNext: AppError | undefined;
  hold: Promise<void> | undefined;
  private readonly inner: ExtractiveFaqWriter;
  constructor(
    readonly kind: 'claude' | 'extractive' = 'extractive',
    readonly id = 'counting:1',
  ) {
    this.inner = new ExtractiveFaqWriter(new LanguageDetector());
  }
  async write(input: FaqWriteInput) {
    this.calls++;
    if (this.hold) await this.hold;
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw failure;
    return this.inner.write(input);
  }
}

function released(): { promise: Promise<void>; release(): void } {
  let release = () => undefined as void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe.each(kinds)('FAQ service on %s', (kind) => {
  let store: TestDatabase;
  let ingestion: IngestionService;
  let retriever: PassageRetriever;
  let clock: number;
  let menusId: string;
  const services: FaqService[] = [];

  const build = (writer: FaqWriter, options: Partial<FaqServiceOptions> = {}, limits: Partial<FaqLimitSettings> = {}) => {
    const service = new FaqService(
      new FaqRepository(store.database.db),
      { retriever, languages: new LanguageDetector() },
      writer,
      new FaqLimits(new SlidingWindowRateLimiter(), { requestsPerMinute: 1_000, missesPerMinute: 1_000, modelFaqsPerDay: 1_000, prefix: 'test', ...limits }),
      logger,
      { contextTokens: 6_000, crossProcess: kind === 'postgres', semanticRetrieval: false, now: () => clock, pollMs: 20, ...options },
    );
    services.push(service);
    return service;
  };
  const ask = (service: FaqService, q: string, clientAddress = '192.0.2.1') => service.get({ q, scope: 'user_docs', language: 'en', clientAddress });
  const rows = () => store.database.db.selectFrom('faq_cache').selectAll().execute();

  beforeAll(async () => {
    store = await createTestDatabase(kind);
    const embedder = new LocalEmbedder();
    ingestion = new IngestionService(store.database, embedder, logger);
    menusId = (await ingestion.ingest({ namespace: 'user_docs', slug: 'menus', title: 'Menus', content: MENUS })).documentId;
    retriever = new PassageRetriever({
      search: new SearchService(store.database, embedder, logger),
      sections: new SectionsRepository(store.database.db),
      reranker: new LocalReranker(),
      logger,
      contextTokens: 3_000,
    });
  }, 60_000);
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.stop()));
    await store.database.db.deleteFrom('faq_cache').execute();
    clock = Date.UTC(2026, 10, 24, 12);
  });
  afterAll(() => store?.drop());
  clock = Date.UTC(2026, 10, 24, 12);

  it('serves an entry for 7 days, then makes it again; the sweep removes expired entries', async () => {
    const writer = new CountingWriter();
    const service = build(writer);
    const first = await ask(service, 'menus');
    expect(first.faq).toMatchObject({ cached: false, generatedAt: new Date(clock).toISOString(), sources: [{ documentId: menusId, title: 'Menus' }] });
    clock += FAQ_CACHE_TTL_MS - 1;
    expect((await ask(service, 'Menus')).faq).toMatchObject({ cached: true, content: first.faq.content, generatedAt: first.faq.generatedAt });
    clock += 1;
    const again = await ask(service, 'menus');
    expect(again.faq).toMatchObject({ cached: false, generatedAt: new Date(clock).toISOString() });
    expect(writer.calls).toBe(2);

    await ask(service, 'menu weights');
    clock += FAQ_CACHE_TTL_MS;
    expect(await service.removeExpired()).toBe(2);
    expect(await rows()).toEqual([]);
  });

  it('removes expired entries on a timer once started', async () => {
    const service = build(new CountingWriter(), { sweepIntervalMs: 20 });
    await ask(service, 'menus');
    expect(await rows()).toHaveLength(1);
    clock += FAQ_CACHE_TTL_MS;
    service.start();
    for (let i = 0; i < 100 && (await rows()).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await rows()).toEqual([]);
  });

  it('makes an FAQ once for concurrent identical misses; the others wait and answer cached', async () => {
    const writer = new CountingWriter();
    const gate = released();
    writer.hold = gate.promise;
    const service = build(writer);
    let joins = 0;
    const join = vi.spyOn(metrics, 'faqJoin');
    const allJoined = new Promise<void>((resolve) => join.mockImplementation(() => void (++joins === 4 && resolve())));
    const pending = Array.from({ length: 5 }, () => ask(service, 'menus'));
    // Released once the four others wait on the first's generation, however slow their way there.
    await allJoined;
    join.mockRestore();
    gate.release();
    const answers = await Promise.all(pending);
    expect(writer.calls).toBe(1);
    expect(answers.filter((a) => !a.faq.cached)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.faq.content)).size).toBe(1);
  });

  it.runIf(kind === 'postgres')('makes an FAQ once across processes: a lease in the database, taken over when its holder died', async () => {
    const writer = new CountingWriter();
    const gate = released();
    writer.hold = gate.promise;
    // Two services with their own in-process state, as two server processes have.
    const [a, b] = [build(writer), build(writer)];
    const pending = [ask(a, 'menus'), ask(b, 'menus'), ask(a, 'menus'), ask(b, 'menus')];
    for (let i = 0; i < 500 && writer.calls === 0; i++) await new Promise((r) => setTimeout(r, 10));
    // The other service's requests have time to reach the writer, if anything let them.
    await new Promise((r) => setTimeout(r, 300));
    gate.release();
    const answers = await Promise.all(pending);
    expect(writer.calls).toBe(1);
    expect(answers.filter((x) => !x.faq.cached)).toHaveLength(1);
    expect(new Set(answers.map((x) => x.faq.content)).size).toBe(1);
    expect(await store.database.db.selectFrom('faq_generations').selectAll().execute()).toEqual([]);

    // A lease whose holder died lapses, and the next request makes the entry.
    const { faqCacheKey } = await import('../src/faq/key.ts');
    await store.database.db
      .insertInto('faq_generations')
      .values({ cache_key: faqCacheKey('menu weights', 'user_docs', 'en'), owner: 'dead', expires_at: new Date(Date.now() + 300) })
      .execute();
    const late = await ask(b, 'menu weights');
    expect(late.faq.cached).toBe(false);
    expect(writer.calls).toBe(2);
  });

  it('never stores a failure; those waiting get the same failure, and the next request tries again', async () => {
    const writer = new CountingWriter();
    const gate = released();
    writer.hold = gate.promise;
    writer.failNext = new AppError('SERVICE_UNAVAILABLE', 'The language model failed');
    const service = build(writer);
    const join = vi.spyOn(metrics, 'faqJoin');
    const joined = new Promise<void>((resolve) => join.mockImplementation(resolve));
    const pending = [ask(service, 'menus'), ask(service, 'menus')].map((p) => p.catch((e: unknown) => e));
    // Released once the second request waits on the first's generation: released at once, the
    // first could fail and be gone before the second got there, which would then make its own.
    await joined;
    join.mockRestore();
    gate.release();
    for (const result of await Promise.all(pending)) expect(result).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(writer.calls).toBe(1);
    expect(await rows()).toEqual([]);
    writer.hold = undefined;
    expect((await ask(service, 'menus')).faq.cached).toBe(false);
    expect(writer.calls).toBe(2);
  });

  it('answers NOT_FOUND for a topic the scope does not hold, storing nothing and calling no writer', async () => {
    const writer = new CountingWriter('claude', 'claude:x');
    const service = build(writer);
    await expect(ask(service, 'kubernetes helm charts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.get({ q: 'menus', scope: 'wiki', language: 'en', clientAddress: '192.0.2.1' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(writer.calls).toBe(0);
    expect(await rows()).toEqual([]);
  });

  it('makes an entry again when its document changed or was deleted, or another writer is configured', async () => {
    const writer = new CountingWriter();
    const service = build(writer);
    await ingestion.ingest({ namespace: 'user_docs', slug: 'sitemap', title: 'Sitemap', content: '# Sitemap\n\n## Sitemap priority\n\nThe sitemap priority defaults to 0.5.\n' });
    expect((await ask(service, 'sitemap priority')).faq.cached).toBe(false);
    expect((await ask(service, 'sitemap priority')).faq.cached).toBe(true);
    const { documentId } = await ingestion.ingest({ namespace: 'user_docs', slug: 'sitemap', title: 'Sitemap', content: '# Sitemap\n\n## Sitemap priority\n\nThe sitemap priority defaults to 0.7.\n' });
    const changed = await ask(service, 'sitemap priority');
    expect(changed.faq.cached).toBe(false);
    expect(changed.faq.content).toContain('0.7');
    expect((await ask(build(new CountingWriter('extractive', 'counting:2')), 'sitemap priority')).faq.cached).toBe(false);
    await store.database.db.deleteFrom('documents').where('id', '=', documentId).execute();
    await expect(ask(service, 'sitemap priority')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('limits misses per address (IPv6 by /64) but keeps serving hits, and model FAQs per day', async () => {
    const service = build(new CountingWriter(), {}, { missesPerMinute: 2, requestsPerMinute: 5 });
    const first = await ask(service, 'menus', '2001:db8:1:2::1');
    expect(first.rateLimit).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    await ask(service, 'menu weights', '2001:db8:1:2:ffff::9');
    const blocked = await ask(service, 'render menus', '2001:db8:1:2::7').catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(AppError);
    expect(blocked).toMatchObject({ code: 'TOO_MANY_REQUESTS', headers: { 'Retry-After': expect.stringMatching(/^\d+$/), 'RateLimit-Limit': '2', 'RateLimit-Remaining': '0' } });
    expect((await ask(service, 'menus', '2001:db8:1:2::1')).faq.cached).toBe(true);
    expect((await ask(service, 'render menus', '2001:db8:1:3::1')).faq.cached).toBe(false);
    // Every request counts against the generous limit.
    await ask(service, 'menus', '2001:db8:1:2::1');
    await expect(ask(service, 'menus', '2001:db8:1:2::1')).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS', message: /Too many FAQ requests/ });

    const model = new CountingWriter('claude', 'claude:x');
    const daily = build(model, {}, { modelFaqsPerDay: 1 });
    await ask(daily, 'menus', '198.51.100.1');
    await expect(ask(daily, 'menu weights', '198.51.100.2')).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS', message: /daily number of new FAQs/ });
    expect(model.calls).toBe(1);
    expect((await ask(daily, 'menus', '198.51.100.3')).faq.cached).toBe(true);
  });
});
