/**
 * Wiki space import, end to end minus HTTP: a local fake Confluence serves a generated space
 * (default 2,000 pages of about 50 KB of storage format) and the import job runs through the
 * job runner into a fresh store with the built-in embedder. Prints pages/s for the first import
 * and for an unchanged re-import, and the CPU time this process spent per page (all its threads:
 * the fake server, the import, and with --store=pglite* the database too).
 *
 *   pnpm exec tsx bench/wiki-import.bench.ts [--store=postgres|pglite|pglite-disk] [--pages=2000] [--page-bytes=50000]
 *     [--no-vector-index]  (PostgreSQL, diagnostic: the ceiling the writes allow without the index)
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { JobRunner } from '../src/jobs/job-runner.ts';
import { JobsRepository, toJobView } from '../src/jobs/jobs.repository.ts';
import { createLogger } from '../src/logger.ts';
import { generateSpace, startFakeConfluence } from '../test/fakes/fake-confluence.ts';
import { createWikiImportHandler } from '../src/wiki/wiki-import.ts';
import { openScratchDatabase } from './scratch-database.ts';
import { dropVectorIndex } from '@kb/db';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'postgres' },
    pages: { type: 'string', default: '2000' },
    'page-bytes': { type: 'string', default: '50000' },
    /** Diagnostic: import with no vector index at all, the ceiling of what the writes allow. */
    'no-vector-index': { type: 'boolean', default: false },
  },
});
const pages = Number(values.pages);
const pageBytes = Number(values['page-bytes']);

const t = performance.now();
const space = generateSpace({ key: 'BENCH', pages, pageBytes, seed: 42 });
const storageBytes = space.pages.reduce((sum, p) => sum + Buffer.byteLength(p.body), 0);
console.log(
  `space: ${pages} pages, ${(storageBytes / 1e6).toFixed(1)} MB of storage format (generated in ${(performance.now() - t).toFixed(0)} ms); store: ${values.store}`,
);
const fake = await startFakeConfluence({ spaces: [space] });
const { database, drop } = await openScratchDatabase(values.store);
await database.migrate();
if (values['no-vector-index']) {
  await dropVectorIndex(database.db);
  console.log('  (no vector index: a ceiling, not a supported configuration)');
}
const logger = createLogger({ level: 'warn' });
const embedder = new LocalEmbedder();
const ingestion = new IngestionService(database, embedder, logger);
const jobs = new JobsRepository(database.db);
const handler = createWikiImportHandler({
  settings: { baseUrl: fake.url, email: fake.email, apiToken: fake.apiToken },
  ingestion,
});
const runner = new JobRunner(jobs, { wiki: handler }, logger);

async function importOnce(label: string) {
  const job = await jobs.create('wiki', { spaceKey: 'BENCH', namespace: 'wiki' });
  const start = performance.now();
  const cpu = process.cpuUsage();
  const outcome = await runner.run(job.id, { signal: new AbortController().signal, finalAttempt: true });
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const view = toJobView((await jobs.get(job.id))!);
  if (outcome.kind !== 'done') throw new Error(`${label} import ended ${outcome.kind}: ${view.error ?? ''}`);
  console.log(
    `${label}: ${(ms / 1000).toFixed(1)} s = ${(pages / (ms / 1000)).toFixed(0)} pages/s, ${(ms / pages).toFixed(2)} ms/page ` +
      `(done ${view.progress.done}, skipped ${view.progress.skipped}, failed ${view.progress.failed}); ` +
      `this process's CPU ${(cpuMs / 1000).toFixed(1)} s = ${(cpuMs / pages).toFixed(1)} ms/page`,
  );
}

try {
  await importOnce('first import');
  const chunks = await sql<{ n: number }>`select count(*)::int as n from chunks`.execute(database.db);
  console.log(`  ${chunks.rows[0]!.n} chunks`);
  await importOnce('unchanged re-import');
} finally {
  await fake.close();
  await drop();
}
