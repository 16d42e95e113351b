/**
 * Hybrid ranking: a lexical ranking (BM25) fused with a vector ranking.
 *
 * Recipe (parameters chosen on the SciFact train split, reported on test by bench/retrieval-eval.ts):
 *  1. Lexical: the best `depth` BM25 hits (k1 0.9, b 0.4) with {@link hybridLexicalAnalyzer}: the
 *     baseline analysis plus word-delimiter splitting of letter-digit tokens ("IL6" also gives
 *     "il" and "6", so it meets "IL-6").
 *  2. Vector: the query vector is moved towards the vectors of the top `feedbackDocs` lexical hits
 *     (Rocchio pseudo-relevance feedback, see prf.ts, weight `feedbackBeta`), then the best
 *     `depth` documents by cosine with that vector.
 *  3. {@link hybridFuse}: convex fusion of min-max normalised scores, weight `vectorWeight` on
 *     the vector side.
 *
 * Score semantics: the fused score is in 0..1. It is the weighted mean of the two lists'
 * min-max normalised scores: 1 = the top hit of both lists; a document only one list returned
 * gets at most that list's weight (0.7 lexical-only, 0.3 vector-only). It is relative to the
 * query (the best hit of every query scores near 1), so it ranks and can be thresholded as
 * "fraction of this query's best match", not compared across queries as a probability.
 */
import { convexFusion, type ScoredHit } from './fusion.ts';
import { analyze } from './text.ts';

/** Analyser of the hybrid mode's lexical ranker: Lucene stop words, Porter, word-delimiter. */
export function hybridLexicalAnalyzer(text: string): string[] {
  return analyze(text, { wordDelimiter: true });
}

export const HYBRID_DEFAULTS = Object.freeze({
  /** Candidates taken from each list before fusion. */
  depth: 100,
  /** Lexical hits used as Rocchio feedback for the vector query. */
  feedbackDocs: 3,
  /** Weight of the feedback centroid relative to the query vector. */
  feedbackBeta: 1,
  /** Weight of the vector list in the convex fusion (lexical gets 1 - this). */
  vectorWeight: 0.3,
});

/** Fuses a lexical and a vector ranking (each best first) into 0..1 scores, best first. */
export function hybridFuse(
  lexical: readonly ScoredHit[],
  vector: readonly ScoredHit[],
  options: { vectorWeight?: number; limit?: number } = {},
): ScoredHit[] {
  const w = options.vectorWeight ?? HYBRID_DEFAULTS.vectorWeight;
  if (!(w >= 0 && w <= 1)) throw new RangeError('vectorWeight must be within 0..1');
  return convexFusion([lexical, vector], { weights: [1 - w, w], ...(options.limit === undefined ? {} : { limit: options.limit }) });
}
