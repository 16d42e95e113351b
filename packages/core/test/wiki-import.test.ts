import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { sql } from 'kysely';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import type { Embedder, EmbeddingInputType } from '../src/embeddings/types.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { JobRunner } from '../src/jobs/job-runner.ts';
import { JobsRepository, toJobView } from '../src/jobs/jobs.repository.ts';
import { createLogger } from '../src/logger.ts';
import { SearchService } from '../src/search/search.service.ts';
import { startFakeConfluence, type FakeConfluence, type FakePage } from './fakes/fake-confluence.ts';
import { createWikiImportHandler, type WikiSettings } from '../src/wiki/wiki-import.ts';

const kinds = await testStoreKinds();
const logger = createLogger({ level: 'silent' });

class ObservedEmbedder implements Embedder {
  readonly inner = new LocalEmbedder();
  readonly model = this.inner.model;
  readonly dimension = this.inner.dimension;
  calls = 0;
  failing = false;
  /** Called before each document embedding (tests observe the store's state then). */
  onDocumentCall?: () => void;
  async embed(texts: readonly string[], inputType: EmbeddingInputType) {
    if (inputType === 'document') {
      this.calls++;
      this.onDocumentCall?.();
    }
    if (this.failing || texts.some((t) => t.includes('POISON'))) throw new Error('embedding service down');
    return this.inner.embed(texts, inputType);
  }
}

function page(id: number, topic: string, version = 1, parentId: string | null = null): FakePage {
  return {
    id: String(1000 + id),
    title: `${topic} guide`,
    parentId,
    version,
    body:
      `<h1>${topic} overview</h1><p>The ${topic} subsystem handles ${topic} requests for every tenant.</p>` +
      `<h2>Configuration</h2><ul><li><p>Set <code>${topic.toUpperCase()}_ENABLED</code> to true.</p></li><li><p>Restart the node.</p></li></ul>` +
      `<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash</ac:parameter>` +
      `<ac:plain-text-body><![CDATA[kbctl ${topic} --apply && echo "a < b"]]></ac:plain-text-body></ac:structured-macro>` +
      `<ac:structured-macro ac:name="warning"><ac:rich-text-body><p>Never restart ${topic} during a backup.</p></ac:rich-text-body></ac:structured-macro>`,
  };
}

const TOPICS = ['billing', 'search', 'storage', 'identity', 'routing', 'alerts', 'exports'];

describe.each(kinds)('wiki space import on %s', (kind) => {
  let fake: FakeConfluence;
  let testDb: TestDatabase;
  let embedder: ObservedEmbedder;
  let ingestion: IngestionService;
  let jobs: JobsRepository;
  let settings: WikiSettings;

  beforeEach(async () => {
    fake = await startFakeConfluence();
    fake.spaces.set('ENG', { id: '98001', key: 'ENG', name: 'Engineering', pages: TOPICS.map((t, i) => page(i, t, 1, i > 0 ? '1000' : null)) });
    testDb = await createTestDatabase(kind);
    embedder = new ObservedEmbedder();
    ingestion = new IngestionService(testDb.database, embedder, logger);
    jobs = new JobsRepository(testDb.database.db);
    settings = { baseUrl: `${fake.url}/wiki/`, email: fake.email, apiToken: fake.apiToken };
  });
  afterEach(async () => {
    await fake.close();
    await testDb.drop();
  });

  async function runImport(spaceKey = 'ENG', options: { settings?: WikiSettings; maxAttempts?: number } = {}) {
    const waits: number[] = [];
    const handler = createWikiImportHandler({
      settings: options.settings ?? settings,
      ingestion,
      client: {
        pageLimit: 3,
        maxAttempts: options.maxAttempts ?? 3,
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    });
    const runner = new JobRunner(jobs, { wiki: handler }, logger, { secrets: [fake.apiToken] });
    const job = await jobs.create('wiki', { spaceKey, namespace: 'wiki' });
    const outcome = await runner.run(job.id, { signal: new AbortController().signal, finalAttempt: true });
    return { outcome, view: toJobView((await jobs.get(job.id))!), waits };
  }

  const documents = () =>
    testDb.database.db.selectFrom('documents').select(['slug', 'title', 'metadata', 'namespace']).orderBy('slug').execute();

  it('imports every page across listing pages, with slug, title and metadata', async () => {
    const { view } = await runImport();
    expect(view).toMatchObject({ status: 'done', progress: { total: 7, done: 7, skipped: 0, failed: 0 }, attempts: 1 });
    const listings = fake.requests.filter((r) => r.path.includes('/pages'));
    expect(listings.length).toBe(3); // 3 + 3 + 1
    const docs = await documents();
    expect(docs.map((d) => d.slug)).toEqual(TOPICS.map((_, i) => `wiki:ENG:${1000 + i}`));
    expect(docs[1]).toMatchObject({
      namespace: 'wiki',
      title: 'search guide',
      metadata: { spaceKey: 'ENG', pageId: '1001', version: 1, parentId: '1000' },
    });
    expect(String((docs[1]!.metadata as { url: string }).url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/wiki\/spaces\/ENG\/pages\/1001/);
    // The page's web link is the document's link.
    const links = await testDb.database.db.selectFrom('documents').select(['slug', 'url']).where('slug', '=', 'wiki:ENG:1001').execute();
    expect(links[0]!.url).toBe((docs[1]!.metadata as { url: string }).url);
    expect(docs[0]!.metadata).toMatchObject({ parentId: null });

    const chunks = await testDb.database.db.selectFrom('chunks').select(['content', 'heading_path']).execute();
    const all = chunks.map((c) => c.content).join('\n');
    expect(all).toContain('```bash\nkbctl billing --apply && echo "a < b"\n```');
    expect(all).toMatch(/> .*Never restart billing during a backup/);
    expect(chunks.some((c) => c.heading_path === 'billing guide > billing overview > Configuration')).toBe(true);

    const search = new SearchService(testDb.database, embedder, logger);
    const hits = await search.search({ query: 'restart routing during backup', namespaces: ['wiki'], topK: 3 });
    expect(hits[0]?.documentTitle).toBe('routing guide');
  });

  it('re-imports an unchanged space without converting or embedding anything', async () => {
    await runImport();
    const callsAfterFirst = embedder.calls;
    const { view } = await runImport();
    expect(view).toMatchObject({ status: 'done', progress: { total: 7, done: 0, skipped: 7, failed: 0 } });
    expect(embedder.calls).toBe(callsAfterFirst);
  });

  it('re-embeds changed pages only, adds new ones and removes deleted ones', async () => {
    await runImport();
    const space = fake.spaces.get('ENG')!;
    space.pages[2] = { ...page(2, 'storage', 2), body: `${page(2, 'storage').body}<p>Quotas apply per bucket.</p>` };
    space.pages.splice(4, 1); // routing deleted
    space.pages.push(page(9, 'payments'));
    embedder.calls = 0;
    const { view } = await runImport();
    expect(view).toMatchObject({ status: 'done', progress: { total: 7, done: 2, skipped: 5, failed: 0 } });
    expect(embedder.calls).toBe(2);
    const docs = await documents();
    expect(docs.map((d) => d.slug)).not.toContain('wiki:ENG:1004');
    expect(docs.map((d) => d.slug)).toContain('wiki:ENG:1009');
    expect(docs.find((d) => d.slug === 'wiki:ENG:1002')!.metadata).toMatchObject({ version: 2 });
    const orphans = await sql<{ n: number }>`select count(*)::int as n from chunks c left join documents d on d.id = c.document_id where d.id is null`.execute(testDb.database.db);
    expect(orphans.rows[0]!.n).toBe(0);
  });

  it('deletes nothing when the listing does not complete', async () => {
    await runImport();
    fake.spaces.get('ENG')!.pages.splice(0, 1);
    fake.fault((path) => path.includes('cursor='), { status: 500 }, 10);
    const { view } = await runImport('ENG', { maxAttempts: 2 });
    expect(view.status).toBe('failed');
    expect(view.error).toMatch(/500/);
    expect((await documents()).length).toBe(7);
  });

  it('honours Retry-After on a 429 and completes', async () => {
    fake.fault((path) => path.includes('/pages'), { status: 429, retryAfter: '2' }, 1);
    const { view, waits } = await runImport();
    expect(view.error).toBeUndefined();
    expect(view.status).toBe('done');
    expect(waits).toEqual([2_000]);
  });

  it('shows, while it retries an unreachable host, the attempt, the next try and an error naming host and cause', async () => {
    // A port nothing listens on: bind one, note it, close it.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const lines: Array<Record<string, unknown>> = [];
    const capture = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    const handler = createWikiImportHandler({
      settings: { ...settings, baseUrl: `http://127.0.0.1:${closed}` },
      ingestion,
      client: { maxAttempts: 2, sleep: async () => undefined },
    });
    const runner = new JobRunner(jobs, { wiki: handler }, capture);
    const job = await jobs.create('wiki', { spaceKey: 'ENG', namespace: 'wiki' });
    const before = Date.now();
    const outcome = await runner.run(job.id, {
      signal: new AbortController().signal,
      finalAttempt: false,
      maxAttempts: 3,
      retryDelayMs: 60_000,
      requestId: 'req-wiki-7',
    });
    expect(outcome.kind).toBe('retry');
    const view = toJobView((await jobs.get(job.id))!);
    expect(view).toMatchObject({ status: 'pending', attempts: 1, maxAttempts: 3 });
    expect(view).not.toHaveProperty('error');
    expect(view.lastError).toContain(`cannot reach 127.0.0.1:${closed}: ECONNREFUSED (connection refused)`);
    expect(view.lastError).toMatch(/failed after 2 attempts/);
    expect(Date.parse(view.nextAttemptAt!)).toBeGreaterThanOrEqual(before + 60_000);
    // Every line the job logged names the request that started it.
    const jobLines = lines.filter((line) => line.jobId === job.id);
    expect(jobLines.length).toBeGreaterThanOrEqual(3);
    for (const line of jobLines) expect(line.reqId).toBe('req-wiki-7');

    // The next attempt starts: the job is running, its last error still shown until it ends.
    const second = await runner.run(job.id, { signal: new AbortController().signal, finalAttempt: true, maxAttempts: 3 });
    expect(second.kind).toBe('failed');
    const failed = toJobView((await jobs.get(job.id))!);
    expect(failed).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAt: null });
    expect(failed.error).toContain('ECONNREFUSED');
    expect(failed).not.toHaveProperty('lastError');
  });

  it('fails with an error naming an unknown space', async () => {
    const { view } = await runImport('NOPE');
    expect(view.status).toBe('failed');
    expect(view.error).toContain('NOPE');
    expect(view.error).toMatch(/not found/);
  });

  it('fails at once, with an actionable message and no secret, on rejected credentials', async () => {
    const { view } = await runImport('ENG', { settings: { ...settings, apiToken: 'wrong-token-value-123' } });
    expect(view.status).toBe('failed');
    expect(view.error).toMatch(/WIKI_EMAIL|WIKI_API_TOKEN/);
    expect(view.error).not.toContain('wrong-token-value-123');
    expect(fake.requests.length).toBe(1);
  });

  it('records a failing page without sinking the job', async () => {
    const space = fake.spaces.get('ENG')!;
    space.pages[3] = { ...space.pages[3]!, body: '<p>POISON</p>' };
    const { view } = await runImport();
    expect(view.error).toBeUndefined();
    expect(view).toMatchObject({ status: "done", progress: { total: 7, done: 6, skipped: 0, failed: 1 } });
    expect((await documents()).map((d) => d.slug)).not.toContain('wiki:ENG:1003');
  });

  it('fails the job when most pages fail', async () => {
    embedder.failing = true;
    const { view } = await runImport();
    expect(view.status).toBe('failed');
    expect(view.progress).toMatchObject({ total: 7, failed: 7 });
    expect(view.error).toMatch(/7 of 7 pages failed/);
  });

  describe('large first imports', () => {
    const vectorIndexExists = async () =>
      (await sql`select 1 from pg_indexes where tablename = 'chunks' and indexname = 'chunks_embedding_idx'`.execute(testDb.database.db)).rows.length > 0;

    beforeEach(async () => {
      // A store where 3 new chunks make a large load, so that this small space is one.
      await testDb.drop();
      testDb = await createTestDatabase(kind, { bulkLoadMinChunks: 3 });
      ingestion = new IngestionService(testDb.database, embedder, logger);
      jobs = new JobsRepository(testDb.database.db);
    });

    it('build the vector index once at the end on the embedded store, and keep it on PostgreSQL', async () => {
      const deferred: boolean[] = [];
      embedder.onDocumentCall = () => deferred.push(testDb.database.vectorIndexDeferred());
      const { view } = await runImport();
      expect(view).toMatchObject({ status: 'done', progress: { total: 7, done: 7 } });
      // The first group is written with the index; the next ones are prepared with it set aside.
      expect(deferred.some(Boolean)).toBe(kind === 'pglite');
      expect(deferred[0]).toBe(false);
      expect(testDb.database.vectorIndexDeferred()).toBe(false);
      expect(await vectorIndexExists()).toBe(true);
      const search = new SearchService(testDb.database, embedder, logger);
      const hits = await search.search({ query: 'restart routing during backup', namespaces: ['wiki'], topK: 3 });
      expect(hits[0]?.documentTitle).toBe('routing guide');
    });

    it('build the index again when the import fails midway', async () => {
      const database = testDb.database;
      const bulkLoad = database.bulkLoad.bind(database);
      let setAside = false;
      database.bulkLoad = () => {
        const load = bulkLoad();
        return {
          expect: async (chunks) => {
            await load.expect(chunks);
            setAside ||= database.vectorIndexDeferred();
          },
          setIndexAside: (worthIt) => load.setIndexAside(worthIt),
          end: () => load.end(),
        };
      };
      fake.fault((path) => path.includes('cursor='), { status: 500 }, 10);
      const { view } = await runImport('ENG', { maxAttempts: 1 });
      expect(view.status).toBe('failed');
      expect(setAside).toBe(kind === 'pglite');
      expect(testDb.database.vectorIndexDeferred()).toBe(false);
      expect(await vectorIndexExists()).toBe(true);
    });
  });
});
