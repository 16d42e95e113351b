/**
 * Pseudo-relevance feedback for vector search (Rocchio, 1971): move the query vector towards the
 * vectors of the top hits of a first ranking, then search again with the moved vector.
 *
 *   q' = normalise(q + beta * mean(top hits' vectors))
 *
 * General and query-independent: no relevance judgements, only the first ranking's own top hits.
 * Hybrid search uses the *lexical* ranking's top hits as feedback, so the second vector search
 * looks for documents resembling what the words matched, not only the query itself.
 */

/** Rocchio feedback; returns a unit vector (or a copy of `query` when there is no feedback). */
export function rocchio(query: ArrayLike<number>, feedback: readonly ArrayLike<number>[], beta = 2): number[] {
  const out = Array.from(query);
  if (feedback.length > 0 && beta !== 0) {
    const w = beta / feedback.length;
    for (const v of feedback) {
      if (v.length !== out.length) throw new RangeError('feedback vectors must have the query dimension');
      for (let j = 0; j < out.length; j++) out[j]! += w * v[j]!;
    }
  }
  let norm2 = 0;
  for (const x of out) norm2 += x * x;
  if (norm2 > 0) {
    const inv = 1 / Math.sqrt(norm2);
    for (let j = 0; j < out.length; j++) out[j]! *= inv;
  }
  return out;
}
