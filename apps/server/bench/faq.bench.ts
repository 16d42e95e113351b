/**
 * The public FAQ on the Hugo documentation (940 pages), offline (the built-in embedder and
 * extractive writer), through a running server.
 *
 *   pnpm --filter @kb/server bench        (with the other server benchmarks)
 *   npx tsx bench/faq.bench.ts [--store=pglite-disk|pglite|postgres] [--rounds=N]
 *
 * - misses: each topic once (a fresh cache), timed server-side (the FAQ service's call, as the
 *   procedure makes it) and over HTTP; pairs per FAQ, 404s;
 * - hits: every topic again, `rounds` times, timed the same way.
 * pglite-disk is the embedded server's store (on disk, its database on a thread of its own).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@kb/config';
import { createLogger, IngestionService, LocalEmbedder } from '@kb/core';
import { createDatabase, type Database } from '@kb/db';
import { createEmptyPostgresDatabase } from '@kb/db/testing';
import { startService } from '../src/app.ts';
import { loadCorpus } from './answer-quality.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'pglite-disk' },
    rounds: { type: 'string', default: '5' },
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/markdown-docs/hugo-docs') },
    show: { type: 'string', default: '2' },
  },
});

/** Topics a reader of the Hugo documentation might ask an FAQ about. */
const TOPICS = [
  'menus', 'taxonomies', 'image processing', 'shortcodes', 'render hooks', 'front matter', 'page bundles', 'multilingual',
  'deploy to Netlify', 'content summaries', 'permalinks', 'pagination', 'sitemap', 'RSS feeds', 'syntax highlighting',
  'Hugo modules', 'themes', 'data files', 'page resources', 'related content', 'output formats', 'template lookup order',
  'partial templates', 'Hugo Pipes', 'JavaScript bundling', 'archetypes', 'build options', 'diagrams', 'mathematics',
  'table of contents', 'base templates', 'URL management', 'aliases', 'drafts', 'environment variables', 'caching',
  'How do I install Hugo on macOS?', 'How do I add a page to a menu?', 'How do I create a new site?', 'quantum chromodynamics',
];

async function scratchDatabase(store: string): Promise<{ database: Database; drop(): Promise<void> }> {
  if (store === 'pglite') {
    const database = await createDatabase({ kind: 'pglite-memory' });
    return { database, drop: () => database.close() };
  }
  if (store === 'pglite-disk') {
    const dir = await mkdtemp(join(tmpdir(), 'kb-faq-bench-'));
    const database = await createDatabase({ kind: 'pglite', dataDir: dir });
    return { database, drop: async () => (await database.close(), await rm(dir, { recursive: true, force: true })) };
  }
  const scratch = await createEmptyPostgresDatabase();
  const database = await createDatabase({ kind: 'postgres', databaseUrl: scratch.url, poolSize: 10 });
  return { database, drop: async () => (await database.close(), await scratch.drop()) };
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const row = (what: string, value: number, limit?: number) =>
  console.log(`  ${what.padEnd(46)} ${value.toFixed(2).padStart(8)} ms${limit === undefined ? '' : `   target ≤ ${limit} ms   ratio ${(value / limit).toFixed(2)}`}`);

const corpus = await loadCorpus(values.corpus);
const { database, drop } = await scratchDatabase(values.store);
try {
  await database.migrate();
  const logger = createLogger({ level: 'silent' });
  const ingestion = new IngestionService(database, new LocalEmbedder(), logger);
  const started = performance.now();
  for (let i = 0; i < corpus.length; i += 32) {
    for (const result of await ingestion.ingestMany(corpus.slice(i, i + 32))) if (result instanceof Error) throw result;
  }
  const chunks = Number((await database.db.selectFrom('chunks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  console.log(`${values.store}: ${corpus.length} Hugo pages, ${chunks} chunks, ingested in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    KB_FAQ_RATE_LIMIT_PER_MINUTE: '1000000',
    KB_FAQ_HIT_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const service = await startService(config, { database, logger });
  try {
    const { services } = service;
    // What the procedure calls, timed on the server's clock (same process as this client).
    const faq = services.faq;
    const get = faq.get.bind(faq);
    let serverMs = 0;
    faq.get = async (...args) => {
      const t = performance.now();
      try {
        return await get(...args);
      } finally {
        serverMs = performance.now() - t;
      }
    };
    const ask = async (topic: string) => {
      const t = performance.now();
      const res = await fetch(`${service.url}/api/v1/faq?q=${encodeURIComponent(topic)}&lang=en`);
      const body = (await res.json()) as { content?: string; cached?: boolean };
      return { status: res.status, body, httpMs: performance.now() - t, serverMs };
    };

    await services.answers.languages.warmUp();
    // Warm-up on topics outside the measured set (first queries compile and cache plans).
    for (const topic of ['hugo server', 'content types', 'lists of content']) await ask(topic);

    const missServer: number[] = [];
    const missHttp: number[] = [];
    const pairs: number[] = [];
    const notFound: string[] = [];
    const few: string[] = [];
    const shown: Array<{ topic: string; content: string }> = [];
    for (const topic of TOPICS) {
      const r = await ask(topic);
      missServer.push(r.serverMs);
      missHttp.push(r.httpMs);
      if (r.status === 404) notFound.push(topic);
      else if (r.status === 200) {
        if (r.body.cached) throw new Error(`${topic}: a miss was served from the cache`);
        const count = (r.body.content!.match(/^## /gm) ?? []).length;
        pairs.push(count);
        if (count < 5) few.push(`${topic} (${count})`);
        if (shown.length < Number(values.show)) shown.push({ topic, content: r.body.content! });
      } else throw new Error(`${topic}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
    }
    const hitServer: number[] = [];
    const hitHttp: number[] = [];
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const topic of TOPICS) {
        if (notFound.includes(topic)) continue;
        const r = await ask(topic);
        if (!r.body.cached) throw new Error(`${topic}: a repeat was not served from the cache`);
        hitServer.push(r.serverMs);
        hitHttp.push(r.httpMs);
      }
    }

    console.log(`\nFAQ misses, extractive writer (${TOPICS.length} topics, each once)`);
    row('server-side (FAQ service call), p50', percentile(missServer, 50), 200);
    row('server-side, p95', percentile(missServer, 95));
    row('over HTTP, p50', percentile(missHttp, 50));
    const hist = new Map<number, number>();
    for (const n of pairs) hist.set(n, (hist.get(n) ?? 0) + 1);
    console.log(`  pairs per FAQ: ${[...hist].sort((a, b) => a[0] - b[0]).map(([n, c]) => `${n}: ${c}`).join(', ')}; 404: ${notFound.length} (${notFound.join('; ')})`);
    if (few.length > 0) console.log(`  fewer than 5 pairs (the knowledge base holds fewer answers): ${few.join('; ')}`);
    console.log(`\nFAQ hits (${hitServer.length} requests)`);
    row('server-side (FAQ service call), p50', percentile(hitServer, 50), 5);
    row('server-side, p95', percentile(hitServer, 95));
    row('over HTTP, p50', percentile(hitHttp, 50));
    for (const { topic, content } of shown) console.log(`\n--- FAQ for "${topic}" ---\n${content}`);
  } finally {
    await service.stop(1_000);
  }
} finally {
  await drop();
}
