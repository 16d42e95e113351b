/**
 * Rerankers of candidate sections: Voyage's reranker (a cross-encoder) when VOYAGE_API_KEY is
 * set, else a local one over the whole sections (BM25 with the corpus's term weights, the
 * query's coverage of the heading trail, and the fused rank of the first retrieval).
 */
import { inSpan } from '../telemetry/tracing.ts';
import { metrics, secondsSince } from '../telemetry/metrics.ts';
import { analyze } from '@kb/content';
import { VoyageAIClient } from 'voyageai';
import type { Logger } from '../logger.ts';

export interface RerankCandidate {
  /** Document title and heading trail. */
  heading: string;
  /** The section's text. */
  text: string;
  /** The first retrieval's fused score, 0..1 (best 1). */
  prior: number;
}

export interface QueryTermWeights {
  /** Analysed query term -> weight (its inverse document frequency in the corpus). */
  weights: ReadonlyMap<string, number>;
}

export interface Reranker {
  readonly kind: 'voyage' | 'local';
  /** One relevance score per candidate, higher is better. */
  rerank(query: string, candidates: readonly RerankCandidate[], terms: QueryTermWeights, signal?: AbortSignal): Promise<number[]>;
}

const K1 = 0.9;
const B = 0.4;

export const LOCAL_RERANK_WEIGHTS = Object.freeze({ section: 0.45, heading: 0.25, prior: 0.3 });

/** Query terms of the local reranker: the service's analysis (Lucene stop words, Porter stems). */
export function rerankTerms(text: string): string[] {
  return analyze(text, { wordDelimiter: true });
}

/**
 * Local reranking: BM25 of each whole section (title and heading trail included) with the
 * corpus's weights for the query terms, normalised over the candidates; the weighted share of
 * the query terms found in its heading trail; and its first-retrieval score. Deterministic.
 */
export function localRerank(candidates: readonly RerankCandidate[], terms: QueryTermWeights, weights = LOCAL_RERANK_WEIGHTS): number[] {
  if (candidates.length === 0) return [];
  const termWeights = terms.weights;
  const totalWeight = [...termWeights.values()].reduce((s, w) => s + w, 0);
  const analysed = candidates.map((c) => ({ body: rerankTerms(`${c.heading} ${c.text}`), heading: new Set(rerankTerms(c.heading)) }));
  const avg = analysed.reduce((s, a) => s + a.body.length, 0) / analysed.length || 1;
  const bm25 = analysed.map(({ body }) => {
    const tf = new Map<string, number>();
    for (const t of body) if (termWeights.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    const norm = K1 * (1 - B + (B * body.length) / avg);
    let score = 0;
    for (const [t, f] of tf) score += (termWeights.get(t)! * f * (K1 + 1)) / (f + norm);
    return score;
  });
  const best = Math.max(...bm25, 0);
  return candidates.map((c, i) => {
    const section = best > 0 ? bm25[i]! / best : 0;
    let covered = 0;
    for (const [t, w] of termWeights) if (analysed[i]!.heading.has(t)) covered += w;
    const heading = totalWeight > 0 ? covered / totalWeight : 0;
    return weights.section * section + weights.heading * heading + weights.prior * c.prior;
  });
}

export class LocalReranker implements Reranker {
  readonly kind = 'local' as const;

  async rerank(_query: string, candidates: readonly RerankCandidate[], terms: QueryTermWeights): Promise<number[]> {
    return localRerank(candidates, terms);
  }
}

/** Characters of a section sent to Voyage's reranker (its context holds far more; this bounds cost). */
const MAX_RERANK_CHARS = 6_000;

/**
 * Voyage's reranker through the voyageai SDK (VOYAGE_BASE_URL honoured). A failed call falls back
 * to the local reranker: a reranking is an improvement, not a reason to fail an answer.
 */
export class VoyageReranker implements Reranker {
  readonly kind = 'voyage' as const;
  readonly #client: VoyageAIClient;
  readonly #fallback = new LocalReranker();

  constructor(
    private readonly options: { apiKey: string; baseUrl?: string; model: string; timeoutMs?: number; logger?: Logger },
  ) {
    this.#client = new VoyageAIClient({
      apiKey: options.apiKey,
      ...(options.baseUrl === undefined ? {} : { environment: options.baseUrl }),
      maxRetries: 0,
      timeoutInSeconds: (options.timeoutMs ?? 15_000) / 1000,
    });
  }

  async rerank(query: string, candidates: readonly RerankCandidate[], terms: QueryTermWeights, signal?: AbortSignal): Promise<number[]> {
    if (candidates.length === 0) return [];
    const began = performance.now();
    try {
      const response = await inSpan('rerank voyage', { 'kb.provider': 'voyage', 'kb.model': this.options.model, 'kb.documents': candidates.length }, () => this.#client.rerank(
        {
          query,
          documents: candidates.map((c) => `${c.heading}\n\n${c.text}`.slice(0, MAX_RERANK_CHARS)),
          model: this.options.model,
          truncation: true,
        },
        { ...(signal ? { abortSignal: signal } : {}), maxRetries: 0 },
      ));
      metrics.providerCall('voyage', 'rerank', 'ok', secondsSince(began));
      if (typeof response.usage?.totalTokens === 'number') metrics.providerTokens('voyage', 'rerank', 'input', response.usage.totalTokens);
      const scores = new Array<number>(candidates.length).fill(0);
      for (const item of response.data ?? []) {
        if (typeof item.index === 'number' && item.index >= 0 && item.index < scores.length && typeof item.relevanceScore === 'number') {
          scores[item.index] = item.relevanceScore;
        }
      }
      return scores;
    } catch (error) {
      metrics.providerCall('voyage', 'rerank', signal?.aborted ? 'aborted' : 'error', secondsSince(began));
      signal?.throwIfAborted();
      this.options.logger?.warn({ err: error, model: this.options.model }, 'Voyage rerank failed; reranking locally');
      return this.#fallback.rerank(query, candidates, terms);
    }
  }
}
