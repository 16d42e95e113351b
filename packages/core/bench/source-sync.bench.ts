/**
 * Website sources: a generated docs site served on loopback (a sitemap and pages of about 5 KB
 * of HTML that link to each other) is synced into a fresh store with the built-in embedder.
 * Every figure is a ratio to a limit measured in the same run:
 * - the first sync's pages/s against the same pages' Markdown through the pipeline call that
 *   `POST /ingest/md` makes (without HTTP), one document at a time, in the same process;
 * - the second sync of the unchanged site against the first: at least 10x faster, and zero
 *   embedding calls;
 * - the heap the sync holds at its peak, for each site size (it must not grow with the site
 *   beyond the per-page records a sync keeps).
 *
 * The live heap is read after a forced collection every 2 s (run with --expose-gc), which shows what
 * the sync holds; the plain peak (every 50 ms) also counts garbage not yet collected.
 *
 *   pnpm exec tsx --expose-gc bench/source-sync.bench.ts [--store=postgres|pglite] [--sizes=2000,20000] [--no-baseline]
 */
import { parseArgs } from 'node:util';
import { htmlToMarkdown } from '@kb/content';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import type { Embedder, EmbeddingInputType } from '../src/embeddings/types.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { JobRunner } from '../src/jobs/job-runner.ts';
import { JobsRepository } from '../src/jobs/jobs.repository.ts';
import { createLogger } from '../src/logger.ts';
import { SourcesRepository } from '../src/sources/sources.repository.ts';
import { createSourceSyncHandler } from '../src/sources/sources.service.ts';
import { htmlPage, sitemapXml, startFakeSite, type FakeSite } from '../test/fakes/fake-site.ts';
import { openScratchDatabase } from './scratch-database.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'postgres' },
    sizes: { type: 'string', default: '2000,20000' },
    baseline: { type: 'boolean', default: true },
  },
  allowNegative: true,
});
const sizes = values.sizes.split(',').map(Number);

class CountingEmbedder implements Embedder {
  readonly inner = new LocalEmbedder();
  readonly model = this.inner.model;
  readonly dimension = this.inner.dimension;
  readonly inProcess = true;
  calls = 0;
  embed(texts: readonly string[], type: EmbeddingInputType) {
    if (type === 'document') this.calls++;
    return this.inner.embed(texts, type);
  }
}

const WORDS = 'install configure deploy rotate backup restore index query cluster replica token quota region billing export webhook'.split(' ');

function pageHtml(n: number, pages: number): string {
  const words = (k: number) => Array.from({ length: k }, (_, i) => WORDS[(n * 7 + i * 3) % WORDS.length]).join(' ');
  const sections = Array.from({ length: 4 }, (_, s) => `<h2>Section ${s} of page ${n}</h2><p>${words(120)}.</p><pre><code>kb ${words(4)} --page ${n}</code></pre>`).join('');
  const links = [1, 2, 3].map((d) => `<a href="/docs/page-${(n + d * 17) % pages}">see ${(n + d * 17) % pages}</a>`).join(' ');
  return htmlPage(`Page ${n}`, `<p>${words(40)}.</p>${sections}<p>${links}</p>`);
}

function serve(site: FakeSite, pages: number): void {
  for (let n = 0; n < pages; n++) site.routes.set(`/docs/page-${n}`, { body: pageHtml(n, pages) });
  site.routes.set('/sitemap.xml', {
    body: sitemapXml(Array.from({ length: pages }, (_, n) => ({ loc: `${site.url}/docs/page-${n}` }))),
    contentType: 'application/xml',
  });
}

const logger = createLogger({ level: 'warn' });

async function run(pages: number, withBaseline: boolean): Promise<void> {
  const site = await startFakeSite();
  serve(site, pages);
  const { database, drop } = await openScratchDatabase(values.store);
  try {
    await database.migrate();
    const embedder = new CountingEmbedder();
    const ingestion = new IngestionService(database, embedder, logger);
    const jobs = new JobsRepository(database.db);
    const sources = new SourcesRepository(database.db);
    const handler = createSourceSyncHandler({
      sources,
      ingestion,
      fetch: { allowPrivate: true, maxBytes: 10 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 5 },
      limits: { hostConcurrency: 4, minIntervalMs: 0, maxSyncMs: 3_600_000 },
    });
    const runner = new JobRunner(jobs, { 'source-sync': handler }, logger);
    const source = await sources.create({
      kind: 'website',
      name: 'bench',
      namespace: 'user_docs',
      settings: { sitemapUrl: `${site.url}/sitemap.xml`, maxDepth: 1, maxPages: pages },
      scheduleMinutes: null,
      nextSyncAt: null,
    });

    const sync = async (label: string) => {
      const job = await jobs.create('source-sync', { sourceId: source.id, trigger: 'manual' });
      const callsBefore = embedder.calls;
      global.gc?.();
      const heapBefore = process.memoryUsage().heapUsed;
      let peak = heapBefore;
      let live = heapBefore;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 50);
      const collector = setInterval(() => {
        if (!global.gc) return;
        global.gc();
        live = Math.max(live, process.memoryUsage().heapUsed);
      }, 2000);
      const start = performance.now();
      const outcome = await runner.run(job.id, { signal: new AbortController().signal, finalAttempt: true });
      const ms = performance.now() - start;
      clearInterval(sampler);
      clearInterval(collector);
      if (outcome.kind !== 'done') throw new Error(`${label} ended ${outcome.kind}`);
      const stats = (await sources.get(source.id))!.last_sync_stats;
      console.log(
        `${pages} pages, ${label}: ${(ms / 1000).toFixed(1)} s = ${(pages / (ms / 1000)).toFixed(1)} pages/s; ` +
          `${embedder.calls - callsBefore} embedding calls; peak heap +${((peak - heapBefore) / 1e6).toFixed(0)} MB, ` +
          `live +${((live - heapBefore) / 1e6).toFixed(1)} MB (${((live - heapBefore) / pages).toFixed(0)} bytes a page); ${JSON.stringify(stats)}`,
      );
      return { ms, calls: embedder.calls - callsBefore, peak: peak - heapBefore };
    };

    const first = await sync('first sync');
    const second = await sync('unchanged second sync');
    console.log(
      `  second/first: ${(first.ms / second.ms).toFixed(1)}x faster (limit: 10x) with ${second.calls} embedding calls (limit: 0)` +
        `${first.ms / second.ms >= 10 && second.calls === 0 ? '' : '  ** BELOW THE LIMIT **'}`,
    );

    if (withBaseline && values.baseline) {
      // The same pages' Markdown through the pipeline POST /ingest/md runs, one at a time, into another namespace.
      const markdown = Array.from({ length: pages }, (_, n) => htmlToMarkdown(pageHtml(n, pages), { baseUrl: `${site.url}/docs/page-${n}` }));
      const start = performance.now();
      for (const [n, doc] of markdown.entries()) {
        await ingestion.ingest({ namespace: 'tech_docs', title: doc.title ?? `Page ${n}`, slug: `page-${n}`, content: doc.markdown });
      }
      const ms = performance.now() - start;
      console.log(
        `  POST /ingest/md's pipeline, same pages: ${(pages / (ms / 1000)).toFixed(1)} pages/s; ` +
          `first sync at ${((first.ms === 0 ? 0 : ms / first.ms) * 100).toFixed(0)}% of its rate (it fetches, converts and links too)`,
      );
    }
  } finally {
    await site.close();
    await drop();
  }
}

for (const [i, pages] of sizes.entries()) await run(pages, i === 0);
