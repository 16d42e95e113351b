/**
 * Retrieval quality of the built-in (no API key) stack on a BEIR dataset.
 *
 *   pnpm --filter @kb/cli exec tsx bench/retrieval-eval.ts /work/shared/corpus/ir-eval/scifact [split=test] [dimension=1024]
 *
 * Documents are indexed as "title text". Runs, each evaluated at 10 (nDCG, Recall, MRR):
 *  - bm25: the baseline (k1 0.9, b 0.4, Lucene's 33 English stop words, Porter stemming);
 *  - semantic: exact (brute-force) cosine between LocalEmbedder query and document vectors;
 *  - hybrid: core's search/hybrid.ts: candidates from BM25 with word-delimiter analysis and from a
 *    vector search with Rocchio feedback from the lexical top hits, rescored by hybridRank (here
 *    every document is one candidate, so its chunk and document signals coincide);
 *  - bm25+wd (information only): the hybrid's lexical ranker on its own.
 * The targets compare semantic and hybrid with the bm25 baseline of the same run.
 */
import { stem } from '@kb/content';
import { HYBRID_DEFAULTS, hybridLexicalAnalyzer, hybridRank, LocalEmbedder, rocchio, type HybridStatistics } from '@kb/core';
import { Bm25Index, topKIndices, type ScoredId } from '../src/eval/bm25.ts';
import { evaluateRuns, loadBeir, type EvalSummary } from '../src/eval/metrics.ts';

const dir = process.argv[2];
const split = process.argv[3] ?? 'test';
const dimension = process.argv[4] ? Number(process.argv[4]) : undefined;
if (!dir) {
  console.error('usage: tsx bench/retrieval-eval.ts <beir-dataset-dir> [split] [dimension]');
  process.exit(2);
}

const since = (start: number): number => performance.now() - start;

let t = performance.now();
const data = await loadBeir(dir, split);
const docs = data.corpus.map((d) => ({ id: d.id, text: d.title ? `${d.title} ${d.text}` : d.text }));
const queryIds = [...data.qrels.keys()].filter((q) => data.queries.has(q));
const queryTexts = queryIds.map((q) => data.queries.get(q)!);
console.log(`${dir} (${split}): ${docs.length} documents, ${queryIds.length} judged queries; loaded in ${since(t).toFixed(0)} ms`);

t = performance.now();
const bm25 = Bm25Index.build(docs);
const bm25Ms = since(t);
t = performance.now();
const lexicalIndex = Bm25Index.build(docs, { analyzer: hybridLexicalAnalyzer });
const lexicalMs = since(t);

const embedder = new LocalEmbedder(dimension === undefined ? {} : { dimension });
const dim = embedder.dimension;
t = performance.now();
const docVectors = await embedder.embed(
  docs.map((d) => d.text),
  'document',
);
const embedMs = since(t);
const matrix = new Float32Array(docs.length * dim);
docVectors.forEach((v, i) => matrix.set(v, i * dim));
console.log(
  `build: BM25 ${bm25Ms.toFixed(0)} ms, BM25+wd ${lexicalMs.toFixed(0)} ms; ` +
    `${embedder.model}: ${docs.length} documents in ${embedMs.toFixed(0)} ms (${((docs.length / embedMs) * 1000).toFixed(0)} docs/s)`,
);

/** Exact cosine of a unit query vector with every unit document vector (the query is sparse). */
function cosineAll(q: ArrayLike<number>): Float64Array {
  const nz: number[] = [];
  for (let j = 0; j < dim; j++) if (q[j] !== 0) nz.push(j);
  const out = new Float64Array(docs.length);
  for (let i = 0; i < docs.length; i++) {
    const o = i * dim;
    let s = 0;
    for (const j of nz) s += q[j]! * matrix[o + j]!;
    out[i] = s;
  }
  return out;
}
const docIndex = new Map(docs.map((d, i) => [d.id, i]));
const { depth, feedbackDocs, feedbackBeta } = HYBRID_DEFAULTS;
// The service takes these from its full-text index; here they come from the in-memory index, and a
// document's "token count" is its analysed length (so the two length units coincide).
const statistics: HybridStatistics = {
  chunks: docs.length,
  documents: docs.length,
  averageTokenCount: lexicalIndex.averageLength,
  frequency: (token) => lexicalIndex.documentFrequency(stem(token)),
};

const names = ['bm25', 'semantic', 'hybrid', 'bm25+wd'] as const;
type RunName = (typeof names)[number];
const runs = Object.fromEntries(names.map((n) => [n, new Map<string, string[]>()])) as Record<RunName, Map<string, string[]>>;
const ms = Object.fromEntries(names.map((n) => [n, 0])) as Record<RunName, number>;
const top10 = (hits: readonly ScoredId[]): string[] => hits.slice(0, 10).map((h) => h.id);

for (let n = 0; n < queryIds.length; n++) {
  const qid = queryIds[n]!;
  const text = queryTexts[n]!;

  let t0 = performance.now();
  runs.bm25.set(qid, top10(bm25.search(text, 10)));
  ms.bm25 += since(t0);

  t0 = performance.now();
  const [qv] = await embedder.embed([text], 'query');
  const cos = cosineAll(qv!);
  runs.semantic.set(qid, topKIndices(cos, 10, -Infinity).map((i) => docs[i]!.id));
  ms.semantic += since(t0);

  t0 = performance.now();
  const lexical = lexicalIndex.search(text, depth);
  const lexicalTime = since(t0);
  runs['bm25+wd'].set(qid, top10(lexical));
  ms['bm25+wd'] += lexicalTime;

  // Hybrid = lexical hits (above) + vector search with Rocchio feedback from them + fusion.
  t0 = performance.now();
  const [hv] = await embedder.embed([text], 'query');
  const feedback = lexical.slice(0, feedbackDocs).map((h) => {
    const i = docIndex.get(h.id)!;
    return matrix.subarray(i * dim, (i + 1) * dim);
  });
  const expanded = cosineAll(rocchio(hv!, feedback, feedbackBeta));
  const similarity = new Map(topKIndices(expanded, depth, -Infinity).map((i) => [i, expanded[i]!]));
  const candidates = new Set([...lexical.map((h) => docIndex.get(h.id)!), ...similarity.keys()]);
  const ranked = hybridRank(
    text,
    [...candidates].map((i) => ({
      id: docs[i]!.id,
      documentId: docs[i]!.id,
      text: docs[i]!.text,
      tokenCount: lexicalIndex.docLength(i),
      ...(similarity.has(i) ? { vectorScore: similarity.get(i)! } : {}),
    })),
    statistics,
    { limit: 10 },
  );
  runs.hybrid.set(qid, top10(ranked));
  ms.hybrid += since(t0) + lexicalTime;
}

const results = Object.fromEntries(names.map((n) => [n, evaluateRuns(runs[n], data.qrels, 10)])) as Record<RunName, EvalSummary>;
const base = results.bm25.ndcg;
console.log('\nrun        nDCG@10  Recall@10  MRR@10   nDCG/BM25  ms/query');
for (const name of names) {
  const r = results[name];
  console.log(
    `${name.padEnd(10)} ${r.ndcg.toFixed(4)}   ${r.recall.toFixed(4)}     ${r.mrr.toFixed(4)}   ${(r.ndcg / base).toFixed(3)}      ${(ms[name] / queryIds.length).toFixed(2)}`,
  );
}
const semRatio = results.semantic.ndcg / base;
const hybRatio = results.hybrid.ndcg / base;
console.log(
  `\ntargets: semantic >= 0.80 x BM25: ${semRatio.toFixed(3)} ${semRatio >= 0.8 ? 'met' : 'MISSED'}; ` +
    `hybrid >= 1.05 x BM25: ${hybRatio.toFixed(3)} ${hybRatio >= 1.05 ? 'met' : 'MISSED'}`,
);
