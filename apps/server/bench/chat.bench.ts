/**
 * Chat: answer quality and stream timings on the Hugo documentation, offline (the built-in
 * embedder and extractive answerer).
 *
 *   pnpm --filter @kb/server bench        (with the other server benchmarks)
 *   npx tsx bench/chat.bench.ts [--store=pglite|postgres] [--rounds=N]
 *
 * - quality (answer-quality.ts): sources against a BM25 top 5, the offline answer's sentence;
 * - timings, through HTTP on a running server: the `meta` event's arrival after the retrieval it
 *   waits for ends (server clock, same process), the first `chunk` after the request is sent
 *   (p50, p95), and, with a mocked model that produces its fragments at once, what the stream adds
 *   per event (request to [DONE], less the model, divided by the events).
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { loadConfig } from '@kb/config';
import { createLogger, IngestionService, LocalEmbedder, type Answerer } from '@kb/core';
import { createDatabase, type Database } from '@kb/db';
import { createEmptyPostgresDatabase } from '@kb/db/testing';
import { startService } from '../src/app.ts';
import { loadCorpus, measureQuality, printQuality } from './answer-quality.ts';
import questions from './hugo-questions.json' with { type: 'json' };
import { readStream } from '../test/sse.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'pglite' },
    rounds: { type: 'string', default: '3' },
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/markdown-docs/hugo-docs') },
    /** Writes a CPU profile (.cpuprofile) of the standard retrieval's timed requests to this file. */
    profile: { type: 'string' },
  },
});

async function scratchDatabase(store: string): Promise<{ database: Database; drop(): Promise<void> }> {
  if (store === 'pglite') {
    const database = await createDatabase({ kind: 'pglite-memory' });
    return { database, drop: () => database.close() };
  }
  const scratch = await createEmptyPostgresDatabase();
  const database = await createDatabase({ kind: 'postgres', databaseUrl: scratch.url, poolSize: 4 });
  return { database, drop: async () => (await database.close(), await scratch.drop()) };
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const row = (what: string, value: number, limit: number | undefined, unit = 'ms') =>
  console.log(`  ${what.padEnd(58)} ${value.toFixed(2).padStart(8)} ${unit}${limit === undefined ? '' : `   limit ${limit} ${unit}   ratio ${(value / limit).toFixed(2)}`}`);

const corpus = await loadCorpus(values.corpus);
const { database, drop } = await scratchDatabase(values.store);
try {
  await database.migrate();
  const logger = createLogger({ level: 'silent' });
  const embedder = new LocalEmbedder();
  const ingestion = new IngestionService(database, embedder, logger);
  const started = performance.now();
  for (let i = 0; i < corpus.length; i += 32) {
    for (const result of await ingestion.ingestMany(corpus.slice(i, i + 32))) if (result instanceof Error) throw result;
  }
  const chunks = Number((await database.db.selectFrom('chunks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  console.log(`${values.store}: ${corpus.length} Hugo pages, ${chunks} chunks, ingested in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
  const service = await startService(config, { database, logger });
  try {
    const { services } = service;
    printQuality(await measureQuality(services.answers.retriever, corpus, questions));

    const { key } = await services.keys.create({ label: 'bench', admin: true });
    const chat = (body: unknown) =>
      fetch(`${service.url}/api/v1/chat`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    // The end of each retrieval, on the server's clock (same process as this client).
    // Where a request's time goes, on the server: checks and the stored question (prepare), the
    // retrieval, and the answerer's start (the extractive answer is picked whole there).
    const retriever = services.answers.retriever;
    const retrieve = retriever.retrieve.bind(retriever);
    let retrievalEnded = 0;
    const spans = { prepare: [] as number[], retrieval: [] as number[], answerer: [] as number[] };
    retriever.retrieve = async (...args) => {
      const t = performance.now();
      const result = await retrieve(...args);
      retrievalEnded = performance.now();
      spans.retrieval.push(retrievalEnded - t);
      return result;
    };
    const chatService = services.chat;
    const prepare = chatService.prepare.bind(chatService);
    chatService.prepare = async (...args) => {
      const t = performance.now();
      const prepared = await prepare(...args);
      spans.prepare.push(performance.now() - t);
      return prepared;
    };
    const timedAnswerer = (answerer: Answerer): Answerer => ({
      kind: answerer.kind,
      async answer(...args) {
        const t = performance.now();
        const stream = await answerer.answer(...args);
        spans.answerer.push(performance.now() - t);
        return stream;
      },
    });
    services.answers.answerer = timedAnswerer(services.answers.answerer);

    await services.answers.languages.warmUp();
    for (const q of questions.slice(0, 5)) await readStream(await chat({ message: q.question }));
    const rounds = Number(values.rounds);
    for (const mode of ['standard', 'smart'] as const) {
      const firstChunk: number[] = [];
      const metaAfterRequest: number[] = [];
      const metaAfterRetrieval: number[] = [];
      for (const list of Object.values(spans)) list.length = 0;
      const profiler = values.profile !== undefined && mode === 'standard' ? new Session() : undefined;
      if (profiler) {
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
        await profiler.post('Profiler.start');
      }
      const cpuBefore = process.cpuUsage();
      for (let r = 0; r < rounds; r++) {
        for (const q of questions) {
          const sent = performance.now();
          const res = await chat({ message: q.question, retrieval: mode, language: 'en' });
          let metaAt = 0;
          let chunkAt = 0;
          await readStream(res, (events) => {
            const now = performance.now();
            if (!metaAt && events.some((e) => e.type === 'meta')) metaAt = now;
            if (!chunkAt && events.some((e) => e.type === 'chunk')) chunkAt = now;
            return false;
          });
          metaAfterRetrieval.push(metaAt - retrievalEnded);
          metaAfterRequest.push(metaAt - sent);
          firstChunk.push(chunkAt - sent);
        }
      }
      // Client, server and (embedded) store share this process: its CPU time per request moves
      // less with the machine's load than the latencies do.
      const cpu = process.cpuUsage(cpuBefore);
      const cpuPerRequest = (cpu.user + cpu.system) / 1000 / firstChunk.length;
      if (profiler) {
        const { profile } = await profiler.post('Profiler.stop');
        await writeFile(values.profile!, JSON.stringify(profile));
        profiler.disconnect();
      }
      console.log(`\nStream timings, ${mode} retrieval, built-in answerer (${firstChunk.length} requests over HTTP)`);
      row('CPU time per request (client, server, store; mean)', cpuPerRequest, undefined);
      row('meta after the request, p50', percentile(metaAfterRequest, 50), 20);
      row('meta after the request, p95', percentile(metaAfterRequest, 95), undefined);
      row('meta after the retrieval it waits for, p50', percentile(metaAfterRetrieval, 50), 5);
      row('meta after the retrieval it waits for, p95', percentile(metaAfterRetrieval, 95), undefined);
      row('first chunk after the request, p50', percentile(firstChunk, 50), 30);
      row('first chunk after the request, p95', percentile(firstChunk, 95), undefined);
      row('  of which: access checks, conversation, stored question, p50', percentile(spans.prepare, 50), undefined);
      row('  of which: retrieval, p50', percentile(spans.retrieval, 50), undefined);
      row('  of which: the extractive answer picked, p50', percentile(spans.answerer, 50), undefined);
    }

    // A mocked model: its fragments are ready at once, so what is measured is the stream.
    const fragments = 2_000;
    const mocked: Answerer = {
      kind: 'claude',
      async answer(input) {
        return {
          passages: input.passages,
          fragments: (async function* () {
            for (let i = 0; i < fragments; i++) yield `word${i} `;
          })(),
        };
      },
    };
    const real = services.answers.answerer;
    services.answers.answerer = mocked;
    const perEvent: number[] = [];
    const modelPerEvent: number[] = [];
    for (let r = 0; r < 10; r++) {
      let metaAt = 0;
      const res = await chat({ message: 'How do I create a menu?', language: 'en' });
      const stream = await readStream(res, (events) => {
        if (!metaAt && events.length > 0) metaAt = performance.now();
        return false;
      });
      const elapsed = performance.now() - metaAt;
      if (stream.events.length !== fragments + 1) throw new Error(`expected ${fragments + 1} events, got ${stream.events.length}`);
      // The model's own cost: producing the fragments with nobody streaming them.
      const t = performance.now();
      for await (const _ of (await mocked.answer({ question: '', query: '', language: 'en', history: [], passages: [] })).fragments) void _;
      modelPerEvent.push((performance.now() - t) / fragments);
      perEvent.push(elapsed / fragments);
    }
    services.answers.answerer = real;
    console.log(`\nStream overhead with a mocked model (${fragments} chunks a request, 10 requests)`);
    row('per event, first event to [DONE] over HTTP (write, flush, parse), p50', percentile(perEvent, 50) * 1000, 1000, 'µs');
    row('  the mocked model alone, per fragment, p50', percentile(modelPerEvent, 50) * 1000, undefined, 'µs');
  } finally {
    await service.stop(1_000);
  }
} finally {
  await drop();
}
