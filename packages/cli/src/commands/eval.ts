import { parseArgs } from 'node:util';
import type { Config } from '@kb/config';
import { stripFragmentMarkers, wellFormedText } from '@kb/content';
import { createLogger, IngestionService, openStore, SearchService, type SearchMode } from '@kb/core';
import { Bm25Index } from '../eval/bm25.ts';
import { evaluateRuns, loadBeir, type EvalSummary } from '../eval/metrics.ts';
import { CliError } from '../store.ts';

export const EVAL_USAGE = `Usage: kb eval <beir-dir> [--split=test] [--limit=N] [--exact]

Retrieval evaluation on a BEIR-format folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv).
The corpus is ingested into a temporary in-memory store through the service's own pipeline, with
the configured embedder; every judged query is then run through the service's semantic and hybrid
search, and through a plain BM25 baseline (k1 0.9, b 0.4, Porter stemming, English stop words)
computed in the same run. Prints nDCG@10, Recall@10 and MRR@10 for each, and the ratios to BM25.
  --split=NAME   qrels split (default test)
  --limit=N      evaluate only the first N judged queries
  --exact        search without the vector index (exact nearest neighbours), to separate the
                 embedder's quality from the index's approximation
  --per-query    also print, for each query, the rank of its best judged document in each run
                 (- when not in the top 10) and the hybrid run's first three documents`;

function row(name: string, s: EvalSummary, baseline: EvalSummary): string {
  const ratio = baseline.ndcg > 0 ? (s.ndcg / baseline.ndcg).toFixed(3) : 'n/a';
  return `${name.padEnd(10)} ${s.ndcg.toFixed(4).padStart(8)} ${s.recall.toFixed(4).padStart(10)} ${s.mrr.toFixed(4).padStart(8)} ${ratio.padStart(9)}`;
}

export async function evalCommand(args: string[], config: Config, out: (s: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { split: { type: 'string', default: 'test' }, limit: { type: 'string' }, exact: { type: 'boolean', default: false }, 'per-query': { type: 'boolean', default: false } },
  });
  const dir = positionals[0];
  if (!dir) throw new CliError(EVAL_USAGE);
  const limit = values.limit === undefined ? Infinity : Number(values.limit);
  if (!(limit >= 1)) throw new CliError('--limit must be at least 1');

  let data;
  try {
    data = await loadBeir(dir, values.split);
  } catch (error) {
    throw new CliError(`Cannot read a BEIR dataset in ${dir}: ${(error as Error).message}`);
  }
  const queryIds = [...data.qrels.keys()].filter((q) => data.queries.has(q)).slice(0, limit);
  out(`${dir} (${values.split}): ${data.corpus.length} documents, ${queryIds.length} judged queries\n`);

  const logger = createLogger({ level: 'warn' });
  const store = await openStore(config, { logger, inMemory: true, checkEmbedding: false });
  const { database, embedder } = store;
  try {
    const ingestion = new IngestionService(database, embedder, logger, { serving: false });
    const search = new SearchService(database, embedder, logger, { exact: values.exact });

    let started = performance.now();
    // A private, temporary store: load it in bulk and build the vector index once at the end.
    const load = ingestion.bulkLoad();
    await load.setIndexAside();
    let chunks = 0;
    for (let i = 0; i < data.corpus.length; i += 64) {
      const results = await ingestion.ingestMany(
        data.corpus.slice(i, i + 64).map((doc) => ({ namespace: 'user_docs' as const, title: doc.title || doc.id, slug: doc.id, content: doc.text })),
      );
      for (const result of results) {
        if (result instanceof Error) throw result;
        chunks += result.chunks;
      }
    }
    if (!values.exact) await load.end();
    const ingestSeconds = (performance.now() - started) / 1000;
    out(`ingested with ${embedder.model}: ${chunks} chunks in ${ingestSeconds.toFixed(1)} s\n`);
    const slugs = await ingestion.documentSlugs();

    started = performance.now();
    // The baseline reads the text as a reader sees it: without the marker comments of included fragments.
    const bm25 = Bm25Index.build(data.corpus.map((d) => ({ id: d.id, text: stripFragmentMarkers(d.title ? `${d.title} ${d.text}` : d.text) })));
    const runs: Record<'bm25' | SearchMode, Map<string, string[]>> = { bm25: new Map(), semantic: new Map(), hybrid: new Map() };
    const timings: Record<'bm25' | SearchMode, number> = { bm25: 0, semantic: 0, hybrid: 0 };
    for (const qid of queryIds) {
      // Queries are text like documents: the pipeline makes documents well formed, so are these.
      const text = wellFormedText(data.queries.get(qid)!);
      let t = performance.now();
      runs.bm25.set(qid, bm25.search(text, 10).map((h) => h.id));
      timings.bm25 += performance.now() - t;
      for (const mode of ['semantic', 'hybrid'] as const) {
        t = performance.now();
        const hits = await search.search({ query: text, topK: 20, mode });
        timings[mode] += performance.now() - t;
        const ranked: string[] = [];
        for (const hit of hits) {
          const slug = slugs.get(hit.documentId);
          if (slug !== undefined && !ranked.includes(slug)) ranked.push(slug);
        }
        runs[mode].set(qid, ranked.slice(0, 10));
      }
    }
    const qrels = new Map(queryIds.map((q) => [q, data.qrels.get(q)!]));
    if (values['per-query']) {
      const rank = (run: Map<string, string[]>, qid: string) => {
        const judged = qrels.get(qid)!;
        const at = run.get(qid)!.findIndex((id) => (judged.get(id) ?? 0) > 0);
        return at < 0 ? '-' : String(at + 1);
      };
      out(`\nquery\tbm25\tsemantic\thybrid\thybrid's first three\n`);
      for (const qid of queryIds) out(`${qid}\t${rank(runs.bm25, qid)}\t${rank(runs.semantic, qid)}\t${rank(runs.hybrid, qid)}\t${runs.hybrid.get(qid)!.slice(0, 3).join(' ')}\n`);
    }
    const baseline = evaluateRuns(runs.bm25, qrels);
    out(`\n${'run'.padEnd(10)} ${'nDCG@10'.padStart(8)} ${'Recall@10'.padStart(10)} ${'MRR@10'.padStart(8)} ${'vs BM25'.padStart(9)}\n`);
    for (const name of ['bm25', 'semantic', 'hybrid'] as const) {
      out(`${row(name, evaluateRuns(runs[name], qrels), baseline)}   ${(timings[name] / queryIds.length).toFixed(2)} ms/query\n`);
    }
    return 0;
  } finally {
    await store.close();
  }
}
