/**
 * Answer quality on the documentation question set (packages/cli/eval-sets/docs-qa: 216
 * questions over the Hugo and FastAPI pages, each with its answering page and sentence, split into
 * a development and a held-out half), offline: built-in embedder, embedded store.
 *
 *   pnpm --filter @kb/server exec tsx bench/docs-qa.bench.ts [--modes=standard[,smart]] [--show=dev] [--corpora=hugo,fastapi]
 *
 * For each half, through the chat service (what a reader gets), with each answerer:
 * - the built-in extractive answerer, and a model through a fake that writes from the passages
 *   it is given (it quotes them all: its answer holds the sentence when a passage does);
 * - the answering page among the answer's sources (the `meta` event), first among them, and among
 *   the retrieved passages; the answer holding the answering sentence (compared without Markdown,
 *   case or spacing);
 * and, computed in the same run, a plain BM25 over whole pages (page in the top 5) and
 * `POST /search` in hybrid mode (page among the first 5 distinct documents).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@kb/config';
import { createLogger, IngestionService, LocalEmbedder, type Answerer, type Retrieval, type RetrievalMode } from '@kb/core';
import { createDatabase } from '@kb/db';
import { Bm25Index } from '@kb/cli/eval';
import { startService } from '../src/app.ts';
import { loadCorpus, normaliseText } from './answer-quality.ts';
import questionSet from '../../../packages/cli/eval-sets/docs-qa/questions.json' with { type: 'json' };

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus') },
    corpora: { type: 'string', default: 'hugo,fastapi' },
    modes: { type: 'string', default: 'standard' },
    /** Print the questions whose answer misses the sentence, for a half (`dev`; never tune on `heldout`). */
    show: { type: 'string', default: '' },
  },
});

interface Question {
  id: string;
  split: 'dev' | 'heldout';
  corpus: string;
  question: string;
  slug: string;
  answer: string;
}
const FOLDERS: Record<string, string> = { hugo: 'markdown-docs/hugo-docs', fastapi: 'markdown-multilingual/fastapi/en' };
const HALVES = ['dev', 'heldout'] as const;
const modes = values.modes.split(',').filter(Boolean) as RetrievalMode[];
const corpora = values.corpora.split(',').filter(Boolean);
const questions = (questionSet as Question[]).filter((q) => corpora.includes(q.corpus));

/** A model that writes from the passages it is given: it quotes them all, best first. */
const passageWriter: Answerer = {
  kind: 'claude',
  async answer(input) {
    return { passages: input.passages, fragments: (async function* () { for (const p of input.passages) yield `${p.content}\n\n`; })() };
  },
};

type Counts = Record<string, number>;
const tally: Record<string, Counts> = {};
const count = (key: string, what: string, hit: boolean) => {
  const c = (tally[key] ??= {});
  c[what] = (c[what] ?? 0) + (hit ? 1 : 0);
  c['n:' + what] = (c['n:' + what] ?? 0) + 1;
};
const misses: string[] = [];
const started = performance.now();

for (const corpusName of corpora) {
  const corpus = await loadCorpus(join(values.corpus, FOLDERS[corpusName]!));
  const mine = questions.filter((q) => q.corpus === corpusName);
  const database = await createDatabase({ kind: 'pglite-memory' });
  try {
    await database.migrate();
    const logger = createLogger({ level: 'silent' });
    const ingestion = new IngestionService(database, new LocalEmbedder(), logger);
    for (let i = 0; i < corpus.length; i += 32) {
      for (const result of await ingestion.ingestMany(corpus.slice(i, i + 32))) if (result instanceof Error) throw result;
    }
    const bm25 = Bm25Index.build(corpus.map((d) => ({ id: d.slug, text: `${d.title}\n${d.content}` })));
    const service = await startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }), { database, logger });
    try {
      const { services } = service;
      const { key } = await services.keys.create({ label: 'bench', admin: true });
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${service.url}/api/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return res.json() as Promise<Record<string, unknown>>;
      };
      let lastRetrieval: Retrieval | undefined;
      const retriever = services.answers.retriever;
      const retrieve = retriever.retrieve.bind(retriever);
      retriever.retrieve = async (...args) => (lastRetrieval = await retrieve(...args));
      const extractive = services.answers.answerer;
      const caller = { keyId: null, kind: 'session' as const, admin: true, namespaces: null };

      for (const q of mine) {
        const halves = [q.split, 'all'];
        const bmHit = bm25.search(q.question, 5).some((h) => h.id === q.slug);
        const found = (await post('/search', { query: q.question, mode: 'hybrid', topK: 20 })) as { results: Array<{ slug: string; documentId: string }> };
        const documents = [...new Map(found.results.map((r) => [r.documentId, r.slug])).values()].slice(0, 5);
        for (const half of halves) {
          count(half, 'bm25 top 5', bmHit);
          count(half, 'search hybrid top 5', documents.includes(q.slug));
        }
        for (const mode of modes) {
          for (const [name, answerer] of [['extractive', extractive], ['model (fake)', passageWriter]] as const) {
            services.answers.answerer = answerer;
            const prepared = await services.chat.prepare({ message: q.question, retrieval: mode, language: 'en' }, caller);
            const answer = await prepared.collect();
            const retrieved = [...new Set(lastRetrieval!.passages.map((p) => p.slug))];
            const rank = answer.sources.findIndex((s) => s.slug === q.slug);
            const holds = normaliseText(answer.answer).includes(normaliseText(q.answer));
            for (const half of halves) {
              const k = `${half}|${mode}|${name}`;
              count(k, 'sources hold the page', rank >= 0);
              count(k, 'page first among sources', rank === 0);
              count(k, 'retrieved passages hold the page', retrieved.includes(q.slug));
              count(k, 'answer holds the sentence', holds);
              count(k, 'sources', false);
              tally[k]!['sources'] = (tally[k]!['sources'] ?? 0) + answer.sources.length;
            }
            if (name === 'extractive' && values.show === q.split && !holds) {
              misses.push(`${q.id} [${mode}] ${retrieved.includes(q.slug) ? `page retrieved (${retrieved.indexOf(q.slug) + 1})` : 'page not retrieved'}, ${rank >= 0 ? `source ${rank + 1}` : 'not a source'}: ${q.question}\n    want: ${q.answer}\n    got:  ${answer.answer.replace(/\n+/g, ' ¶ ').slice(0, 600)}`);
            }
          }
        }
      }
      services.answers.answerer = extractive;
    } finally {
      await service.stop(1_000);
    }
  } finally {
    await database.close();
  }
}

const rate = (c: Counts | undefined, what: string) => (c && c['n:' + what] ? c[what]! / c['n:' + what]! : NaN);
const cell = (x: number) => (Number.isNaN(x) ? '   -  ' : x.toFixed(3).padStart(6));
console.log(`\nDocumentation questions (${corpora.join(', ')}): ${questions.length} (${HALVES.map((h) => `${h} ${questions.filter((q) => q.split === h).length}`).join(', ')}), ${((performance.now() - started) / 1000).toFixed(0)} s`);
console.log(`${''.padEnd(62)}${HALVES.map((h) => h.padStart(8)).join('')}`);
const line = (label: string, values: number[], baseline?: number[]) =>
  console.log(`  ${label.padEnd(60)}${values.map(cell).map((v) => v.padStart(8)).join('')}${baseline ? `   vs BM25 ${values.map((v, i) => (v / baseline[i]!).toFixed(2)).join(' / ')}` : ''}`);
const bm = HALVES.map((h) => rate(tally[h], 'bm25 top 5'));
line('BM25 over pages: page in the top 5', bm);
line('POST /search hybrid: page among the first 5 documents', HALVES.map((h) => rate(tally[h], 'search hybrid top 5')), bm);
for (const mode of modes) {
  for (const name of ['extractive', 'model (fake)']) {
    console.log(`  chat, ${mode} retrieval, ${name}:`);
    line('  sources hold the page', HALVES.map((h) => rate(tally[`${h}|${mode}|${name}`], 'sources hold the page')), bm);
    line('  page first among sources', HALVES.map((h) => rate(tally[`${h}|${mode}|${name}`], 'page first among sources')));
    line('  retrieved passages hold the page', HALVES.map((h) => rate(tally[`${h}|${mode}|${name}`], 'retrieved passages hold the page')));
    line('  answer holds the sentence', HALVES.map((h) => rate(tally[`${h}|${mode}|${name}`], 'answer holds the sentence')));
    console.log(`    ${'sources on average'.padEnd(58)}${HALVES.map((h) => { const c = tally[`${h}|${mode}|${name}`]; return (c ? c['sources']! / c['n:sources']! : NaN).toFixed(1).padStart(8); }).join('')}`);
  }
}
if (misses.length) console.log(`\nExtractive answers missing the sentence (${values.show} half):\n${misses.join('\n')}`);
