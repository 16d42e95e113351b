/**
 * Answers to questions worded the way users ask them (packages/cli/eval-sets/user-qa: goal- or
 * symptom-first paraphrases over the Hugo and FastAPI pages, each with its answering pages and
 * answer keys, questions the pages do not cover, three-question conversations), offline: built-in
 * embedder, embedded store. Both halves are printed in one run; tune on `dev` only.
 *
 *   pnpm --filter @kb/server exec tsx bench/user-qa.bench.ts [--corpora=hugo,fastapi] [--show=dev] [--keep=/tmp/user-qa] [--half=dev] [--search-only]
 *
 * Per half:
 * - BM25 over whole pages (computed in the same run), `POST /search` hybrid and semantic: an
 *   answering page among the first 5 distinct documents;
 * - chat (what a reader gets), with the built-in answerer and with a model through a fake that
 *   writes from every passage it is given: an answering page among the sources;
 * - the built-in answer holds the answer keys (each key, one of its spellings, as a whole word);
 * - not-covered questions answered "found nothing"; answerable ones answered "found nothing";
 * - the third question of a conversation: sources hold its page, against the same question alone;
 * - p50 time to the whole built-in answer, as a ratio to the p50 of hybrid search in the same run;
 * - results for a nonsense query in both search modes;
 * - how many of the question's words its answering page holds, for the questions hybrid's first 5
 *   documents answer and for those they miss (what a ranking by words can see).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@kb/config';
import { createLogger, extractAnswer, extractivePhrases, IngestionService, LocalEmbedder, type Answerer, type Retrieval } from '@kb/core';
import { analyze, EXTENDED_STOP_WORDS } from '@kb/content';
import { createDatabase } from '@kb/db';
import { Bm25Index } from '@kb/cli/eval';
import { startService } from '../src/app.ts';
import { loadCorpus } from './answer-quality.ts';
import { percentile } from './http.ts';
import questionSet from '../../../packages/cli/eval-sets/user-qa/questions.json' with { type: 'json' };
import conversationSet from '../../../packages/cli/eval-sets/user-qa/conversations.json' with { type: 'json' };

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus') },
    corpora: { type: 'string', default: 'hugo,fastapi' },
    /**
     * Print the half's misses and the trade-off of each "nothing answers" cue (the answerer's
     * evidence, retrieval's score gap, agreement and rarest words) on it; never tune on `heldout`.
     */
    show: { type: 'string', default: '' },
    /** Keep each corpus's ingested store in this folder and reuse it next time (faster reruns; ingestion unchanged). */
    keep: { type: 'string', default: '' },
    /** Only this half (`dev`: a quicker run while tuning); both by default. */
    half: { type: 'string', default: '' },
    /** Search figures only (no chat, answers or conversations): a quicker run while tuning retrieval. */
    'search-only': { type: 'boolean', default: false },
  },
});

interface Question {
  id: string;
  split: 'dev' | 'heldout';
  corpus: string;
  question: string;
  pages: string[];
  keys: string[][];
}
interface Conversation {
  id: string;
  split: 'dev' | 'heldout';
  corpus: string;
  turns: string[];
}
const FOLDERS: Record<string, string> = { hugo: 'markdown-docs/hugo-docs', fastapi: 'markdown-multilingual/fastapi/en' };
const HALVES = ['dev', 'heldout'] as const;
const corpora = values.corpora.split(',').filter(Boolean);
const inHalf = (split: string) => values.half === '' || values.half === split;
const questions = (questionSet as Question[]).filter((q) => corpora.includes(q.corpus) && inHalf(q.split));
const conversations = (conversationSet as Conversation[]).filter((c) => corpora.includes(c.corpus) && inHalf(c.split));
const NONSENSE = 'zzzxqv';
const nothingPhrase = extractivePhrases('en').nothing;

/** A model that writes from the passages it is given: it quotes them all, best first. */
const passageWriter: Answerer = {
  kind: 'claude',
  async answer(input) {
    return { passages: input.passages, fragments: (async function* () { for (const p of input.passages) yield `${p.content}\n\n`; })() };
  },
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A key held as a whole word: not inside a longer name (`-D` is not the start of `-Data`). */
const holdsKey = (text: string, spellings: readonly string[]) =>
  spellings.some((k) => new RegExp(`(?<![\\w-])${escape(k)}(?![\\w])`).test(text) || (/\W$/.test(k) && text.includes(k)));

type Counts = Record<string, number>;
const tally: Record<string, Counts> = {};
const count = (half: string, what: string, hit: boolean) => {
  for (const h of [half, 'all']) {
    const c = (tally[h] ??= {});
    c[what] = (c[what] ?? 0) + (hit ? 1 : 0);
    c['n:' + what] = (c['n:' + what] ?? 0) + 1;
  }
};
const answerMs: Record<string, number[]> = { dev: [], heldout: [] };
/** Words of the built-in answers outside code blocks (answerable questions answered). */
const answerWords: Record<string, number[]> = { dev: [], heldout: [] };
const proseWords = (text: string) => text.replace(/```[\s\S]*?```/g, ' ').split(/\s+/).filter(Boolean).length;
const searchMs: Record<string, number[]> = { dev: [], heldout: [] };
const nonsense: string[] = [];
const evidence: Array<{ half: string; answerable: boolean; evidence: number } & Signals> = [];
/** Signals of retrieval tried as "nothing answers" cues besides the answerer's evidence (printed with --show). */
interface Signals {
  /** Hybrid score of the first document less that of the fifth. */
  gap: number;
  /** Documents shared by the hybrid and semantic first fives, 0..1. */
  agreement: number;
  /** Whether one retrieved passage holds the message's two rarest words (in the knowledge base) together. */
  rareTogether: boolean;
}
const termsOf = (text: string) => new Set(analyze(text, { stopWords: EXTENDED_STOP_WORDS }));
function retrievalSignals(results: ReadonlyArray<{ slug: string; score: number }>, hybrid: readonly string[], semantic: readonly string[], retrieval: Retrieval): Signals {
  const best = new Map<string, number>();
  for (const r of results) if (!best.has(r.slug)) best.set(r.slug, r.score);
  const firstScores = [...best.values()];
  const gap = firstScores.length > 1 ? firstScores[0]! - firstScores[Math.min(4, firstScores.length - 1)]! : 1;
  const rarest = [...(retrieval.wordFrequencies?.frequencies ?? [])].filter(([, df]) => df > 0).sort((a, b) => a[1] - b[1]).slice(0, 2).map(([w]) => [...termsOf(w)]).filter((t) => t.length > 0);
  const passages = retrieval.passages.map((p) => termsOf(`${p.headingPath} ${p.content}`));
  const rareTogether = rarest.length < 2 || passages.some((t) => rarest.every((terms) => terms.some((x) => t.has(x))));
  return { gap, agreement: hybrid.filter((d) => semantic.includes(d)).length / 5, rareTogether };
}
/**
 * Share of a question's words (extended stop words left out, stemmed) that its answering pages
 * hold, the best page's, by whether hybrid search's first 5 documents held one: the vocabulary gap.
 */
const pageWords: Record<string, number[]> = {};
const misses: string[] = [];
const searchOnly = values['search-only'];
const started = performance.now();

for (const corpusName of corpora) {
  const corpus = await loadCorpus(join(values.corpus, FOLDERS[corpusName]!));
  const mine = questions.filter((q) => q.corpus === corpusName);
  const kept = values.keep ? join(values.keep, corpusName) : '';
  const reuse = kept !== '' && existsSync(join(kept, 'PG_VERSION'));
  const database = await createDatabase(kept ? { kind: 'pglite', dataDir: kept } : { kind: 'pglite-memory' });
  const logger = createLogger({ level: 'silent' });
  try {
    await database.migrate();
    if (!reuse) {
      const ingestion = new IngestionService(database, new LocalEmbedder(), logger);
      for (let i = 0; i < corpus.length; i += 32) {
        for (const result of await ingestion.ingestMany(corpus.slice(i, i + 32))) if (result instanceof Error) throw result;
      }
    }
    const bm25 = Bm25Index.build(corpus.map((d) => ({ id: d.slug, text: `${d.title}\n${d.content}` })));
    const service = await startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }), { database, logger });
    try {
      const { services } = service;
      const { key } = await services.keys.create({ label: 'bench', admin: true });
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${service.url}/api/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return res.json() as Promise<{ results: Array<{ slug: string; documentId: string; score: number }> }>;
      };
      const firstDocuments = (found: { results: Array<{ slug: string; documentId: string }> }) => [...new Map(found.results.map((r) => [r.documentId, r.slug])).values()].slice(0, 5);
      const pageTerms = new Map(corpus.map((d) => [d.slug, termsOf(`${d.title}\n${d.content}`)]));
      for (const mode of ['hybrid', 'semantic'] as const) nonsense.push(`${corpusName} ${mode}: ${(await post('/search', { query: NONSENSE, mode, topK: 5 })).results.length}`);
      const extractive = services.answers.answerer;
      let lastRetrieval: Retrieval | undefined;
      const retriever = services.answers.retriever;
      const retrieve = retriever.retrieve.bind(retriever);
      retriever.retrieve = async (...args) => (lastRetrieval = await retrieve(...args));
      /** The built-in answerer's evidence for the last retrieval (how well its passages bear on the question). */
      const evidenceOf = (question: string) =>
        extractAnswer({ question, query: lastRetrieval!.query, language: 'en', passages: lastRetrieval!.passages, ...(lastRetrieval!.wordFrequencies ? { wordFrequencies: lastRetrieval!.wordFrequencies } : {}) }).evidence ?? 0;
      const caller = { keyId: null, kind: 'session' as const, admin: true, namespaces: null };
      const ask = async (answerer: Answerer, message: string, conversationId?: string) => {
        services.answers.answerer = answerer;
        const prepared = await services.chat.prepare({ message, language: 'en', ...(conversationId ? { conversationId } : {}) }, caller);
        return prepared.collect();
      };
      /** The sources of each question asked alone, with the built-in answerer. */
      const alone = new Map<string, boolean>();

      for (const q of mine) {
        const answerable = q.pages.length > 0;
        const t0 = performance.now();
        const hybridFound = await post('/search', { query: q.question, mode: 'hybrid', topK: 20 });
        const hybrid = firstDocuments(hybridFound);
        searchMs[q.split]!.push(performance.now() - t0);
        const semantic = firstDocuments(await post('/search', { query: q.question, mode: 'semantic', topK: 20 }));
        if (searchOnly) {
          if (!answerable) continue;
          const holds = (slugs: readonly string[]) => slugs.some((s) => q.pages.includes(s));
          count(q.split, 'bm25 top 5', holds(bm25.search(q.question, 5).map((h) => h.id)));
          count(q.split, 'hybrid top 5', holds(hybrid));
          count(q.split, 'semantic top 5', holds(semantic));
          const asked = [...termsOf(q.question)];
          const share = Math.max(0, ...q.pages.map((p) => asked.filter((t) => pageTerms.get(p)?.has(t)).length / Math.max(1, asked.length)));
          (pageWords[`${q.split} ${holds(hybrid) ? 'found' : 'missed'}`] ??= []).push(share);
          continue;
        }
        const t1 = performance.now();
        const answer = await ask(extractive, q.question);
        answerMs[q.split]!.push(performance.now() - t1);
        const foundNothing = answer.answer.includes(nothingPhrase) || answer.sources.length === 0;
        evidence.push({ half: q.split, answerable, evidence: evidenceOf(q.question), ...retrievalSignals(hybridFound.results, hybrid, semantic, lastRetrieval!) });
        if (!answerable) {
          count(q.split, 'not covered: answered "found nothing"', foundNothing);
          count(q.split, 'not covered: hybrid search returns nothing', hybrid.length === 0);
          if (values.show === q.split && !foundNothing) misses.push(`${q.id} not covered, answered: ${q.question}\n    got: ${answer.answer.replace(/\n+/g, ' ¶ ').slice(0, 300)}`);
          continue;
        }
        const holds = (slugs: readonly string[]) => slugs.some((s) => q.pages.includes(s));
        count(q.split, 'bm25 top 5', holds(bm25.search(q.question, 5).map((h) => h.id)));
        count(q.split, 'hybrid top 5', holds(hybrid));
        count(q.split, 'semantic top 5', holds(semantic));
        const sourced = holds(answer.sources.map((s) => s.slug));
        alone.set(q.id, sourced);
        count(q.split, 'chat sources (built-in)', sourced);
        const keys = q.keys.every((k) => holdsKey(answer.answer, k));
        count(q.split, 'answer keys held (built-in)', keys);
        count(q.split, 'answerable: "found nothing"', foundNothing);
        if (!foundNothing) answerWords[q.split]!.push(proseWords(answer.answer));
        const modelAnswer = await ask(passageWriter, q.question);
        count(q.split, 'chat sources (model, fake)', holds(modelAnswer.sources.map((s) => s.slug)));
        if (values.show === q.split && (!keys || !sourced)) {
          misses.push(`${q.id} ${holds(hybrid) ? `hybrid top 5` : 'not in hybrid top 5'}, ${sourced ? 'a source' : 'not a source'}, keys ${keys ? 'held' : 'missed'}: ${q.question}\n    want: ${q.keys.map((k) => k.join(' or ')).join(' and ')} from ${q.pages.join(', ')}\n    sources: ${answer.sources.map((s) => s.slug).join(', ')}\n    got: ${answer.answer.replace(/\n+/g, ' ¶ ').slice(0, 500)}`);
        }
      }
      const byId = new Map(mine.map((q) => [q.id, q]));
      for (const c of searchOnly ? [] : conversations.filter((x) => x.corpus === corpusName)) {
        let conversationId: string | undefined;
        let last;
        for (const id of c.turns) {
          last = await ask(extractive, byId.get(id)!.question, conversationId);
          conversationId = last.conversationId;
        }
        const third = byId.get(c.turns[2]!)!;
        count(c.split, 'third of three: sources hold its page', last!.sources.some((s) => third.pages.includes(s.slug)));
        count(c.split, 'third of three: asked alone', alone.get(third.id)!);
        count(c.split, 'third of three: "found nothing"', last!.answer.includes(nothingPhrase));
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
const cell = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(3)).padStart(9);
const columns = [...HALVES, 'all'];
console.log(`\nUser-worded questions (${corpora.join(', ')}): ${questions.length} (${HALVES.map((h) => `${h} ${questions.filter((q) => q.split === h).length}`).join(', ')}), ${conversations.length} conversations, ${((performance.now() - started) / 1000).toFixed(0)} s`);
console.log(`${''.padEnd(50)}${columns.map((h) => h.padStart(9)).join('')}`);
const line = (label: string, xs: number[]) => console.log(`  ${label.padEnd(48)}${xs.map(cell).join('')}`);
for (const what of [
  'bm25 top 5',
  'hybrid top 5',
  'semantic top 5',
  'chat sources (built-in)',
  'chat sources (model, fake)',
  'answer keys held (built-in)',
  'answerable: "found nothing"',
  'not covered: answered "found nothing"',
  'not covered: hybrid search returns nothing',
  'third of three: sources hold its page',
  'third of three: asked alone',
  'third of three: "found nothing"',
]) {
  line(what, columns.map((h) => rate(tally[h], what)));
}
line('third of three / alone', columns.map((h) => rate(tally[h], 'third of three: sources hold its page') / rate(tally[h], 'third of three: asked alone')));
const p50 = (xs: number[]) => (xs.length > 0 ? percentile(xs, 50) : NaN);
const all = (m: Record<string, number[]>) => [...m['dev']!, ...m['heldout']!];
line('median words of a built-in answer outside code', [...HALVES.map((h) => p50(answerWords[h]!)), p50(all(answerWords))]);
line('p50 built-in answer, ms', [...HALVES.map((h) => p50(answerMs[h]!)), p50(all(answerMs))]);
line('p50 answer / p50 hybrid search (same run)', [...HALVES.map((h) => p50(answerMs[h]!) / p50(searchMs[h]!)), p50(all(answerMs)) / p50(all(searchMs))]);
console.log(`  results for "${NONSENSE}": ${nonsense.join(', ')}`);
if (searchOnly) {
  const median = (xs: number[] | undefined) => (xs && xs.length > 0 ? percentile(xs, 50).toFixed(2) : '-');
  for (const half of HALVES) {
    const at = (k: string) => pageWords[`${half} ${k}`];
    console.log(`  ${half}: the answering page holds a median ${median(at('found'))} of the question's words where hybrid's first 5 hold it (${at('found')?.length ?? 0}), ${median(at('missed'))} where they miss it (${at('missed')?.length ?? 0})`);
  }
}
if (values.show) {
  // What a cut-off on the built-in answerer's evidence would do on the half shown.
  const shown = evidence.filter((e) => e.half === values.show);
  const cuts = [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6];
  console.log(`\nEvidence cut-off (${values.show} half): "found nothing" on answerable / not covered handled`);
  for (const cut of cuts) {
    const share = (answerable: boolean) => { const xs = shown.filter((e) => e.answerable === answerable); return xs.filter((e) => e.evidence < cut).length / Math.max(1, xs.length); };
    console.log(`  ${cut.toFixed(2)}: ${share(true).toFixed(3)} / ${share(false).toFixed(3)}`);
  }
  // Retrieval's own cues, alone and with the evidence cut-off in force (0.35).
  const curve = (label: string, refuse: (e: (typeof shown)[number], t: number) => boolean, ts: number[]) => {
    console.log(`${label}: "found nothing" on answerable / not covered handled`);
    for (const t of ts) {
      const share = (answerable: boolean) => { const xs = shown.filter((e) => e.answerable === answerable); return xs.filter((e) => refuse(e, t)).length / Math.max(1, xs.length); };
      console.log(`  ${t.toFixed(2)}: ${share(true).toFixed(3)} / ${share(false).toFixed(3)}`);
    }
  };
  curve('Hybrid score of the first document less the fifth\'s < t', (e, t) => e.gap < t, [0.1, 0.15, 0.2, 0.25, 0.3]);
  curve('Hybrid and semantic first fives share < t of their documents', (e, t) => e.agreement < t, [0.2, 0.4, 0.6]);
  curve('Evidence < 0.35, or the two rarest words in no passage together and evidence < t', (e, t) => e.evidence < 0.35 || (!e.rareTogether && e.evidence < t), [0.35, 0.4, 0.45, 0.5, 0.55, 0.6]);
}
if (misses.length) console.log(`\nMisses (${values.show} half):\n${misses.join('\n')}`);
