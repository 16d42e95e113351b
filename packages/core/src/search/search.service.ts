import type { Database } from '@kb/db';
import type { Embedder } from '../embeddings/types.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { HYBRID_DEFAULTS, hybridFuse } from '../retrieval/hybrid.ts';
import { rocchio } from '../retrieval/prf.ts';
import { SearchRepository, type ChunkHit, type ScoredHit } from './search.repository.ts';

export type SearchMode = 'semantic' | 'hybrid';

export interface SearchInput {
  query: string;
  /** Namespaces to search; null or empty for all. */
  namespaces?: readonly string[] | null;
  topK: number;
  mode?: SearchMode;
}

export interface SearchResult extends ChunkHit {
  score: number;
}


export class SearchService {
  private readonly repository: SearchRepository;

  constructor(
    database: Database,
    private readonly embedder: Embedder,
    private readonly logger: Logger,
  ) {
    this.repository = new SearchRepository(database.db);
  }

  private async embedQuery(query: string, signal?: AbortSignal): Promise<number[]> {
    try {
      const [vector] = await this.embedder.embed([query], 'query', signal);
      return vector!;
    } catch (error) {
      if (signal?.aborted) throw error;
      this.logger.warn({ err: error }, 'query embedding failed');
      throw new AppError('SERVICE_UNAVAILABLE', 'The embedding service failed; try again later.', { cause: error });
    }
  }

  /**
   * semantic: child chunks ranked by cosine similarity; score = 1 - cosine distance, in 0..1.
   * hybrid: BM25 over the full-text index, and a vector ranking whose query is moved towards
   * the vectors of the best lexical hits (Rocchio feedback), fused as a weighted mean of each
   * ranking's min-max normalised scores: score in 0..1, 1 = best of both rankings, at most
   * 0.7 for a chunk only the lexical ranking found and 0.3 for one only the vector ranking found.
   */
  async search(input: SearchInput, signal?: AbortSignal): Promise<SearchResult[]> {
    const namespaces = input.namespaces && input.namespaces.length > 0 ? input.namespaces : null;
    const vector = await this.embedQuery(input.query, signal);
    if ((input.mode ?? 'semantic') === 'semantic') {
      const hits = await this.repository.nearest(vector, namespaces, input.topK);
      return hits.map(({ raw, ...hit }) => ({ ...hit, score: Math.min(1, Math.max(0, 1 - raw)) }));
    }
    const depth = Math.max(HYBRID_DEFAULTS.depth, input.topK);
    const lexicalHits = await this.repository.lexical(input.query, namespaces, depth);
    const feedback = await this.repository.vectors(lexicalHits.slice(0, HYBRID_DEFAULTS.feedbackDocs).map((h) => h.chunkId));
    const vectorHits = await this.repository.nearest(rocchio(vector, feedback, HYBRID_DEFAULTS.feedbackBeta), namespaces, depth);
    const byId = new Map<string, ScoredHit>();
    for (const hit of [...vectorHits, ...lexicalHits]) byId.set(hit.chunkId, hit);
    const fused = hybridFuse(
      lexicalHits.map((h) => ({ id: h.chunkId, score: h.raw })),
      vectorHits.map((h) => ({ id: h.chunkId, score: 1 - h.raw })),
      { limit: input.topK },
    );
    return fused.map(({ id, score }) => {
      const { raw: _raw, ...hit } = byId.get(id)!;
      return { ...hit, score: Math.min(1, Math.max(0, score)) };
    });
  }
}
