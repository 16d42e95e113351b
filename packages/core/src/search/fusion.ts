/**
 * Reciprocal rank fusion of several rankings of the same collection (smart retrieval fuses the
 * rankings of a question's variants with it). Hits come back best first with a `score` in 0..1:
 * sum_i w_i / (k + rank_i) divided by its maximum sum_i w_i / (k + 1), so 1 means "ranked first by
 * every list"; a document missing from a list counts as ranked below everything in it. Not
 * comparable across queries, only as "how high up all lists put it".
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

