/**
 * Fusion of several rankings of the same collection (e.g. a lexical and a vector ranking): the
 * standard fusers, kept for retrieval experiments. The service's hybrid search rescores its
 * candidates instead (core's search/hybrid.ts).
 *
 * Both fusers return hits best first with a `score` in 0..1, and both treat a document missing
 * from a list as ranked/scored below everything in it.
 *
 * - {@link reciprocalRankFusion}: uses ranks only. score = sum_i w_i / (k + rank_i) divided by its
 *   maximum sum_i w_i / (k + 1), so 1 means "ranked first by every list"; a document found by
 *   only some lists gets at most the share of those lists' weights. Not comparable across queries
 *   as a relevance probability, only as "how high up all lists put it".
 * - {@link convexFusion}: uses scores. Each list's scores are min-max normalised over the
 *   candidates it returned (best -> 1, worst returned -> 0, missing -> 0), then combined as the
 *   weighted mean sum_i w_i * s_i / sum_i w_i. So 1 means "top of every list", and the score says
 *   how close to each list's best hit for this query a document is; it is relative to the query.
 */

export interface ScoredHit {
  id: string;
  score: number;
}

export interface RrfOptions {
  /** Rank offset (default 60, Cormack et al. 2009). Larger k flattens the rank discount. */
  k?: number;
  /** One weight per list (default all 1). */
  weights?: readonly number[];
  /** Hits to return (default all fused documents). */
  limit?: number;
}

function checkWeights(lists: readonly unknown[], weights: readonly number[] | undefined): number[] {
  const w = weights ? [...weights] : lists.map(() => 1);
  if (w.length !== lists.length) throw new RangeError('one weight per list is required');
  if (w.some((x) => !(x >= 0))) throw new RangeError('weights must be >= 0');
  return w;
}

function sortHits(scores: Map<string, number>, limit: number | undefined): ScoredHit[] {
  const hits = [...scores].map(([id, score]) => ({ id, score }));
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return limit === undefined ? hits : hits.slice(0, limit);
}

/** Reciprocal rank fusion of ranked lists (each best first; only the order is used). */
export function reciprocalRankFusion(lists: readonly (readonly ScoredHit[])[], options: RrfOptions = {}): ScoredHit[] {
  const k = options.k ?? 60;
  if (!(k >= 0)) throw new RangeError('k must be >= 0');
  const weights = checkWeights(lists, options.weights);
  const max = weights.reduce((s, w) => s + w / (k + 1), 0);
  const fused = new Map<string, number>();
  lists.forEach((list, i) => {
    const w = weights[i]!;
    const seen = new Set<string>();
    list.forEach((hit, rank) => {
      if (seen.has(hit.id)) return;
      seen.add(hit.id);
      fused.set(hit.id, (fused.get(hit.id) ?? 0) + w / (k + rank + 1));
    });
  });
  if (max > 0) for (const [id, s] of fused) fused.set(id, s / max);
  return sortHits(fused, options.limit);
}

export interface ConvexOptions {
  /** One weight per list (default all 1); only their ratios matter. */
  weights?: readonly number[];
  /** Hits to return (default all fused documents). */
  limit?: number;
}

/** Min-max normalises one list's scores to 0..1 (all equal -> 1). */
export function minMaxNormalize(list: readonly ScoredHit[]): Map<string, number> {
  const out = new Map<string, number>();
  if (list.length === 0) return out;
  let min = Infinity;
  let max = -Infinity;
  for (const h of list) {
    if (h.score < min) min = h.score;
    if (h.score > max) max = h.score;
  }
  const range = max - min;
  for (const h of list) {
    if (out.has(h.id)) continue;
    out.set(h.id, range > 0 ? (h.score - min) / range : 1);
  }
  return out;
}

/** Weighted mean of min-max normalised scores (see the module comment). */
export function convexFusion(lists: readonly (readonly ScoredHit[])[], options: ConvexOptions = {}): ScoredHit[] {
  const weights = checkWeights(lists, options.weights);
  const total = weights.reduce((s, w) => s + w, 0);
  const fused = new Map<string, number>();
  lists.forEach((list, i) => {
    const w = total > 0 ? weights[i]! / total : 0;
    for (const [id, s] of minMaxNormalize(list)) fused.set(id, (fused.get(id) ?? 0) + w * s);
  });
  return sortHits(fused, options.limit);
}
