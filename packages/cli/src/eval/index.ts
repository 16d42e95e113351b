// Retrieval evaluation (a BM25 baseline and ranking metrics) for `kb eval` and the benchmarks;
// not part of the service's runtime.
export { Bm25Index, defaultBm25Analyzer, topKIndices } from './bm25.ts';
export type { Bm25Doc, Bm25Options, ScoredId } from './bm25.ts';
export { evaluateRuns, loadBeir, mrrAtK, ndcgAtK, parseQrels, recallAtK } from './metrics.ts';
export type { BeirDataset, BeirDoc, EvalSummary, Qrels } from './metrics.ts';
