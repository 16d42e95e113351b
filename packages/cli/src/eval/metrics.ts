/**
 * Ranking metrics (trec_eval / pytrec_eval conventions, as used by BEIR) and a BEIR data loader.
 *
 * - Relevance grades come from qrels; a grade <= 0 means not relevant.
 * - nDCG@k: gain = grade (linear, as trec_eval's ndcg_cut), discount 1 / log2(rank + 1) with
 *   rank starting at 1; the ideal DCG sorts all judged grades of the query, best first.
 * - Recall@k: relevant documents in the top k / all relevant documents of the query.
 * - MRR@k: 1 / rank of the first relevant document within the top k, else 0.
 * A query with no relevant document scores 0 on all three (callers normally skip such queries).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Relevance judgements: query id -> document id -> grade. */
export type Qrels = Map<string, Map<string, number>>;

export function ndcgAtK(ranking: readonly string[], judgements: ReadonlyMap<string, number>, k: number): number {
  const ideal = [...judgements.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += ideal[i]! / Math.log2(i + 2);
  if (idcg === 0) return 0;
  let dcg = 0;
  const seen = new Set<string>();
  for (let i = 0; i < Math.min(k, ranking.length); i++) {
    const id = ranking[i]!;
    if (seen.has(id)) continue; // a duplicated hit earns nothing the second time
    seen.add(id);
    const grade = judgements.get(id) ?? 0;
    if (grade > 0) dcg += grade / Math.log2(i + 2);
  }
  return dcg / idcg;
}

export function recallAtK(ranking: readonly string[], judgements: ReadonlyMap<string, number>, k: number): number {
  let relevant = 0;
  for (const g of judgements.values()) if (g > 0) relevant++;
  if (relevant === 0) return 0;
  const found = new Set<string>();
  for (const id of ranking.slice(0, k)) if ((judgements.get(id) ?? 0) > 0) found.add(id);
  return found.size / relevant;
}

export function mrrAtK(ranking: readonly string[], judgements: ReadonlyMap<string, number>, k: number): number {
  for (let i = 0; i < Math.min(k, ranking.length); i++) {
    if ((judgements.get(ranking[i]!) ?? 0) > 0) return 1 / (i + 1);
  }
  return 0;
}

export interface EvalSummary {
  queries: number;
  ndcg: number;
  recall: number;
  mrr: number;
  /** Per-query nDCG@k, for paired comparisons. */
  perQueryNdcg: Map<string, number>;
}

/**
 * Averages the three metrics over the queries that have at least one relevant document in qrels.
 * A query missing from `runs` counts as an empty ranking.
 */
export function evaluateRuns(runs: ReadonlyMap<string, readonly string[]>, qrels: Qrels, k = 10): EvalSummary {
  let n = 0;
  let ndcg = 0;
  let recall = 0;
  let mrr = 0;
  const perQueryNdcg = new Map<string, number>();
  for (const [qid, judgements] of qrels) {
    if (![...judgements.values()].some((g) => g > 0)) continue;
    const ranking = runs.get(qid) ?? [];
    const q = ndcgAtK(ranking, judgements, k);
    perQueryNdcg.set(qid, q);
    ndcg += q;
    recall += recallAtK(ranking, judgements, k);
    mrr += mrrAtK(ranking, judgements, k);
    n++;
  }
  return n === 0
    ? { queries: 0, ndcg: 0, recall: 0, mrr: 0, perQueryNdcg }
    : { queries: n, ndcg: ndcg / n, recall: recall / n, mrr: mrr / n, perQueryNdcg };
}

export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}

export interface BeirDataset {
  corpus: BeirDoc[];
  /** Query id -> text (all queries of queries.jsonl, whatever the split). */
  queries: Map<string, string>;
  /** Judgements of the requested split. */
  qrels: Qrels;
}

function parseJsonl(content: string, file: string): unknown[] {
  const out: unknown[] = [];
  const lines = content.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch (error) {
      throw new Error(`${file}:${i + 1}: invalid JSON`, { cause: error });
    }
  }
  return out;
}

function field(record: unknown, name: string): string {
  if (typeof record !== 'object' || record === null) return '';
  const value = (record as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** Parses a BEIR qrels TSV (`query-id corpus-id score`, optional header, LF or CRLF). */
export function parseQrels(content: string): Qrels {
  const qrels: Qrels = new Map();
  for (const raw of content.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const cols = line.split(/\t| +/);
    if (cols.length < 3) continue;
    const [qid, did, grade] = cols as [string, string, string];
    const g = Number(grade);
    if (!Number.isFinite(g)) continue; // header line
    let judgements = qrels.get(qid);
    if (!judgements) {
      judgements = new Map();
      qrels.set(qid, judgements);
    }
    judgements.set(did, g);
  }
  return qrels;
}

/** Loads a BEIR dataset folder: corpus.jsonl, queries.jsonl and qrels/<split>.tsv. */
export async function loadBeir(dir: string, split = 'test'): Promise<BeirDataset> {
  const [corpusText, queriesText, qrelsText] = await Promise.all([
    readFile(join(dir, 'corpus.jsonl'), 'utf8'),
    readFile(join(dir, 'queries.jsonl'), 'utf8'),
    readFile(join(dir, 'qrels', `${split}.tsv`), 'utf8'),
  ]);
  const corpus = parseJsonl(corpusText, 'corpus.jsonl').map((r) => ({
    id: field(r, '_id'),
    title: field(r, 'title'),
    text: field(r, 'text'),
  }));
  const queries = new Map<string, string>();
  for (const r of parseJsonl(queriesText, 'queries.jsonl')) queries.set(field(r, '_id'), field(r, 'text'));
  return { corpus, queries, qrels: parseQrels(qrelsText) };
}
