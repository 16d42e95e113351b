import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DocumentsService } from '../src/documents/documents.service.ts';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import type { Embedder, EmbeddingInputType } from '../src/embeddings/types.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { InProcessJobQueue } from '../src/jobs/in-process-queue.ts';
import { JobRunner } from '../src/jobs/job-runner.ts';
import { JobsRepository, toJobView } from '../src/jobs/jobs.repository.ts';
import { createLogger } from '../src/logger.ts';
import { createSourceSyncHandler, SourcesService } from '../src/sources/sources.service.ts';
import { SourcesRepository } from '../src/sources/sources.repository.ts';
import { createWikiImportHandler, type WikiSettings } from '../src/wiki/wiki-import.ts';
import { startFakeConfluence, type FakeConfluence, type FakePage } from './fakes/fake-confluence.ts';

const kinds = await testStoreKinds();
const logger = createLogger({ level: 'silent' });

class CountingEmbedder implements Embedder {
  readonly inner = new LocalEmbedder();
  readonly model = this.inner.model;
  readonly dimension = this.inner.dimension;
  readonly inProcess = false;
  calls = 0;
  async embed(texts: readonly string[], inputType: EmbeddingInputType) {
    if (inputType === 'document') this.calls++;
    if (texts.some((t) => t.includes('POISON'))) throw new Error('embedding service down');
    return this.inner.embed(texts, inputType);
  }
}

function page(id: number, topic: string, version = 1): FakePage {
  return {
    id: String(2000 + id),
    title: `${topic} runbook`,
    parentId: null,
    version,
    body: `<h1>${topic}</h1><p>The ${topic} runbook says how to restart ${topic} safely.</p><ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[kbctl ${topic} restart]]></ac:plain-text-body></ac:structured-macro>`,
  };
}

const TOPICS = ['billing', 'search', 'storage', 'identity', 'routing'];

describe.each(kinds)('confluence sources on %s', (kind) => {
  let fake: FakeConfluence;
  let testDb: TestDatabase;
  let embedder: CountingEmbedder;
  let ingestion: IngestionService;
  let jobs: JobsRepository;
  let repo: SourcesRepository;
  let service: SourcesService;
  let queue: InProcessJobQueue;
  let wiki: WikiSettings;

  beforeEach(async () => {
    fake = await startFakeConfluence();
    fake.spaces.set('OPS', { id: '77001', key: 'OPS', name: 'Operations', pages: TOPICS.map((t, i) => page(i, t)) });
    testDb = await createTestDatabase(kind);
    embedder = new CountingEmbedder();
    ingestion = new IngestionService(testDb.database, embedder, logger);
    jobs = new JobsRepository(testDb.database.db);
    repo = new SourcesRepository(testDb.database.db);
    wiki = { baseUrl: `${fake.url}/wiki/`, email: fake.email, apiToken: fake.apiToken };
    const handler = createSourceSyncHandler({
      sources: repo,
      ingestion,
      fetch: { allowPrivate: true, maxBytes: 1024 * 1024, timeoutMs: 10_000, maxRedirects: 3 },
      limits: { hostConcurrency: 2, minIntervalMs: 0, maxSyncMs: 60_000 },
      get wiki() {
        return wiki;
      },
      wikiClient: { pageLimit: 2, maxAttempts: 2, sleep: async () => undefined },
    });
    const runner = new JobRunner(jobs, { 'source-sync': handler }, logger, { secrets: [fake.apiToken] });
    queue = new InProcessJobQueue(runner, jobs, logger, { attempts: 1, backoffMs: 1 });
    service = new SourcesService(repo, jobs, queue, ingestion, logger, wiki);
  });
  afterEach(async () => {
    await queue.close();
    await fake.close();
    await testDb.drop();
  });

  async function sync(id: string) {
    const started = await service.syncNow(id);
    await queue.whenIdle();
    return { job: toJobView((await jobs.get(started!.jobId))!), source: await service.get(id) };
  }

  const documentsOf = async (sourceId: string) => (await new DocumentsService(testDb.database, logger).list({ sourceId, limit: 200 })).documents;

  it('syncs a space, costs no embedding when unchanged, re-embeds a new version, and removes pages gone from the space', async () => {
    const created = await service.create({ kind: 'confluence', name: 'Ops wiki', namespace: 'wiki', settings: { spaceKey: 'OPS' }, scheduleMinutes: 60 });
    // The account is the server's: nothing of it is a setting, stored or shown.
    expect(created).toMatchObject({ kind: 'confluence', settings: { spaceKey: 'OPS' }, nextSyncAt: expect.any(String) });
    expect(JSON.stringify(created)).not.toContain(fake.apiToken);

    const first = await sync(created.id);
    expect(first.job.status).toBe('done');
    expect(first.source.lastSync).toMatchObject({ status: 'done', error: null, pages: { discovered: 5, updated: 5, unchanged: 0, removed: 0, failed: 0 } });
    const docs = await documentsOf(created.id);
    expect(docs.map((d) => d.slug).sort()).toEqual(TOPICS.map((_, i) => `wiki:OPS:${2000 + i}`));
    expect(docs.every((d) => d.sourceId === created.id && d.url?.includes('/wiki/spaces/OPS/pages/'))).toBe(true);
    const calls = embedder.calls;
    expect(calls).toBe(5);

    const second = await sync(created.id);
    expect(second.source.lastSync).toMatchObject({ status: 'done', pages: { discovered: 5, updated: 0, unchanged: 5, removed: 0 } });
    expect(embedder.calls).toBe(calls);

    const space = fake.spaces.get('OPS')!;
    space.pages[1] = { ...page(1, 'search', 2), body: `${page(1, 'search').body}<p>Reindex after a restart.</p>` };
    space.pages.splice(3, 1); // identity deleted
    const third = await sync(created.id);
    expect(third.source.lastSync).toMatchObject({ status: 'done', pages: { discovered: 4, updated: 1, unchanged: 3, removed: 1 } });
    expect(embedder.calls).toBe(calls + 1);
    const left = await documentsOf(created.id);
    expect(left.map((d) => d.slug)).not.toContain('wiki:OPS:2003');
    expect(left.find((d) => d.slug === 'wiki:OPS:2001')!.metadata).toMatchObject({ version: 2 });
    const orphans = await sql<{ n: number }>`select count(*)::int as n from chunks c left join documents d on d.id = c.document_id where d.id is null`.execute(testDb.database.db);
    expect(orphans.rows[0]!.n).toBe(0);
    expect((await service.failures(created.id, {})).failures).toEqual([]);
  });

  it('lists a page that fails with its link and reason, keeps the rest, and removes nothing when the listing breaks off', async () => {
    fake.spaces.get('OPS')!.pages[2] = { ...page(2, 'storage'), body: '<p>POISON page</p>' };
    const { id } = await service.create({ kind: 'confluence', name: 'Ops wiki', namespace: 'wiki', settings: { spaceKey: 'OPS' } });
    const { job, source } = await sync(id);
    expect(job.status).toBe('done');
    expect(source.lastSync).toMatchObject({ status: 'partial', error: '1 page failed (see the failures).', pages: { updated: 4, failed: 1 } });
    const { failures } = await service.failures(id, {});
    expect(failures).toEqual([expect.objectContaining({ url: expect.stringMatching(/\/wiki\/spaces\/OPS\/pages\/2002/), reason: expect.stringMatching(/^It could not be ingested: The embedding service failed/) })]);

    // A listing that fails half-way fails the sync and removes nothing.
    fake.spaces.get('OPS')!.pages.splice(0, 1);
    fake.fault((path) => path.includes('cursor='), { status: 500 }, 10);
    const broken = await sync(id);
    expect(broken.source.lastSync).toMatchObject({ status: 'failed', error: expect.stringMatching(/500/) });
    expect(await documentsOf(id)).toHaveLength(4);
  });

  it('answers an unknown space, a server without a Confluence account, and bad settings clearly', async () => {
    const unknown = await service.create({ kind: 'confluence', name: 'Nope', namespace: 'wiki', settings: { spaceKey: 'NOPE' } });
    const { job, source } = await sync(unknown.id);
    expect(job.status).toBe('failed');
    expect(source.lastSync?.error).toBe('Wiki space "NOPE" was not found (or the configured account cannot see it)');

    await expect(service.create({ kind: 'confluence', name: 'x', namespace: 'wiki', settings: {} })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/settings\.spaceKey/) });
    await expect(service.create({ kind: 'confluence', name: 'x', namespace: 'wiki', settings: { spaceKey: 'OPS', apiToken: 'x' } })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/apiToken/) });
    await expect(service.create({ kind: 'confluence', name: 'x', namespace: 'wiki', settings: { spaceKey: 'A,B' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(service.update(unknown.id, { settings: { startUrl: 'https://docs.example.com/' } })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/Invalid confluence settings/) });

    const unconfigured = new SourcesService(repo, jobs, queue, ingestion, logger, {});
    await expect(unconfigured.create({ kind: 'confluence', name: 'x', namespace: 'wiki', settings: { spaceKey: 'OPS' } })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'Confluence sources are not configured on this server: set WIKI_BASE_URL, WIKI_EMAIL, WIKI_API_TOKEN',
    });
    // A source stored while the account was set, synced after it was unset.
    wiki = {};
    const later = await sync(unknown.id);
    expect(later.source.lastSync?.error).toBe('Confluence sources are not configured on this server: set WIKI_BASE_URL, WIKI_EMAIL, WIKI_API_TOKEN');
  });

  it('takes over the documents a wiki import of the same space wrote, without embedding them again', async () => {
    const runner = new JobRunner(jobs, { wiki: createWikiImportHandler({ settings: wiki, ingestion, client: { sleep: async () => undefined } }) }, logger);
    const imported = await jobs.create('wiki', { spaceKey: 'OPS', namespace: 'wiki' });
    await runner.run(imported.id, { signal: new AbortController().signal, finalAttempt: true });
    expect(toJobView((await jobs.get(imported.id))!).status).toBe('done');
    const calls = embedder.calls;
    const { id } = await service.create({ kind: 'confluence', name: 'Ops wiki', namespace: 'wiki', settings: { spaceKey: 'OPS' } });
    const { source } = await sync(id);
    expect(source.lastSync?.pages).toMatchObject({ unchanged: 5, updated: 0 });
    expect(embedder.calls).toBe(calls);
    expect(await documentsOf(id)).toHaveLength(5);
  });
});
