import type { Database } from '@kb/db';
import { inSpan } from '../telemetry/tracing.ts';
import type { Embedder } from '../embeddings/types.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { NAMESPACES, resolveNamespaces, type NamespaceScope } from '../namespaces.ts';
import { CandidateAnalysisCache, chunkSearchText, HYBRID_DEFAULTS, hybridLexicalAnalyzer, hybridQueryTerms, hybridQueryTokens, hybridRank, lexicalQueryText, type HybridRankOptions } from './hybrid.ts';
import { SearchRepository, type ChunkHit, type CorpusStats, type HybridCandidates, type ScoredHit, type SearchRepositoryOptions } from './search.repository.ts';

export type SearchMode = 'semantic' | 'hybrid';

export interface SearchInput {
  query: string;
  /** Namespaces to search; null or empty for all (of the scope). */
  namespaces?: readonly string[] | null;
  /** The caller's namespaces: a namespace outside them is refused (403); none asked for reads them all. */
  scope?: NamespaceScope;
  topK: number;
  /** Default: the embedder's preferred mode ({@link SearchService.defaultMode}). */
  mode?: SearchMode;
  /** Hybrid: candidates read from each ranking (default 40, never fewer than topK). */
  depth?: number;
}

export interface SearchResult extends ChunkHit {
  score: number;
}


const clampUnit = (x: number) => Math.min(1, Math.max(0, x));

/**
 * Extra results read beyond topK so that collapsing identical passages still fills the list
 * (documentation repeats shared snippets: the same option table on every command's page).
 */
const DUPLICATE_SLACK = 10;

/**
 * The weight of a score of text included from a shared fragment (a Hugo `include`, a snippet)
 * against a page's own text: such text says what every page including it says, so a page that
 * writes about a subject itself comes first unless the copy fits the query clearly better.
 */
export const FRAGMENT_WEIGHT = 0.8;

/** The included fragments of some hits' chunks, by chunk id (read with the hits, for {@link collapseIdentical}). */
function fragmentsOf(hits: Iterable<{ chunkId: string; fragment?: string }>): Map<string, string> {
  const fragments = new Map<string, string>();
  for (const hit of hits) if (hit.fragment !== undefined) fragments.set(hit.chunkId, hit.fragment);
  return fragments;
}

/** Hits without their fragment, which ranks them but is not part of a result. */
function withoutFragments<T extends { fragment?: string }>(hits: readonly T[]): Array<Omit<T, 'fragment'>> {
  return hits.map(({ fragment: _fragment, ...hit }) => hit);
}

/**
 * The results with each passage kept once, at its best rank: a passage repeated word for word by
 * other documents (white space aside) collapses to the best-ranked of them, and so do the copies
 * of an included fragment in several documents (`fragments`: the fragment of a result's chunk,
 * by chunk id): the fragment is kept from the document of its best-ranked copy only. Before that,
 * a fragment's copies are ranked again with their score times {@link FRAGMENT_WEIGHT}, the score
 * they are returned with. At most `topK`; `results` best first.
 */
export function collapseIdentical<T extends { chunkId?: string; documentId?: string; content: string; score?: number }>(
  results: readonly T[],
  topK: number,
  fragments: ReadonlyMap<string, string> = new Map(),
): T[] {
  const fragmentOf = (result: T) => (result.chunkId === undefined ? undefined : fragments.get(result.chunkId));
  const ranked =
    fragments.size === 0
      ? results
      : results
          .map((result, index) => {
            const weighted = fragmentOf(result) !== undefined && result.score !== undefined;
            return { result: weighted ? { ...result, score: result.score! * FRAGMENT_WEIGHT } : result, index };
          })
          // Stable: results of equal weighted score keep their order.
          .sort((a, b) => (b.result.score ?? 0) - (a.result.score ?? 0) || a.index - b.index)
          .map(({ result }) => result);
  const seen = new Set<string>();
  const copyFrom = new Map<string, string | undefined>();
  const kept: T[] = [];
  for (const result of ranked) {
    const key = result.content.trim().replace(/\s+/g, ' ');
    if (seen.has(key)) continue;
    const fragment = fragmentOf(result);
    if (fragment !== undefined) {
      if (copyFrom.has(fragment) && copyFrom.get(fragment) !== result.documentId) continue;
      copyFrom.set(fragment, result.documentId);
    }
    seen.add(key);
    kept.push(result);
    if (kept.length === topK) break;
  }
  return kept;
}

/**
 * The namespaces a search filters on (null: no filter, every namespace), within its scope. Every
 * namespace named is no filter either: both must rank alike (a filter changes the statements'
 * plans, and an approximate vector index's neighbours).
 */
function searchedNamespaces(input: SearchInput): readonly string[] | null {
  const resolved = input.scope === undefined || input.scope === null ? [...new Set(input.namespaces ?? [])] : resolveNamespaces(input.namespaces, input.scope);
  return resolved.length === 0 || NAMESPACES.every((namespace) => resolved.includes(namespace)) ? null : resolved;
}

/**
 * hybridRank over a hybrid search's candidates, ranked from their texts (what the statement does
 * from stored terms when it can): the lexical and vector hits by chunk, and each vector hit's
 * cosine similarity.
 */
export function rankCandidates(
  query: string,
  found: Pick<HybridCandidates, 'lexical' | 'nearest' | 'wordFrequencies'>,
  stats: CorpusStats,
  options: HybridRankOptions,
): { ranked: ReturnType<typeof hybridRank>; byId: Map<string, ScoredHit>; similarity: Map<string, number> } {
  const byId = new Map<string, ScoredHit>();
  const similarity = new Map<string, number>();
  for (const hit of found.nearest) {
    byId.set(hit.chunkId, hit);
    similarity.set(hit.chunkId, 1 - hit.raw);
  }
  for (const hit of found.lexical) byId.set(hit.chunkId, hit);
  const ranked = hybridRank(
    query,
    [...byId.values()].map((h) => ({
      id: h.chunkId,
      documentId: h.documentId,
      text: chunkSearchText(h.headingPath, h.content),
      tokenCount: h.tokenCount,
      ...(similarity.has(h.chunkId) ? { vectorScore: similarity.get(h.chunkId)! } : {}),
    })),
    { chunks: stats.n, documents: stats.documents, averageTokenCount: stats.avgdl, frequency: (word) => found.wordFrequencies.get(word) },
    options,
  );
  return { ranked, byId, similarity };
}

export class SearchService {
  private readonly repository: SearchRepository;
  /** A stored chunk's text never changes under its id (chunks are replaced, not updated). */
  private readonly analyses = new CandidateAnalysisCache();

  constructor(
    database: Database,
    private readonly embedder: Embedder,
    private readonly logger: Logger,
    /**
     * `exact`: rank by the whole vectors of every chunk, without the vector index (evaluation).
     * `lexicalCandidates`: the most chunks a hybrid search's lexical ranking scores (0: no limit).
     */
    options: SearchRepositoryOptions = {},
  ) {
    this.repository = new SearchRepository(database, options);
  }

  /** The mode of a search that names none: hybrid with the built-in embedder, semantic with a model's. */
  get defaultMode(): SearchMode {
    return this.embedder.searchMode ?? 'semantic';
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
   * hybrid: candidates from BM25 over the full-text index and from a vector ranking whose query
   * is moved towards the vectors of the best lexical hits (Rocchio feedback), rescored together
   * (hybrid.ts): the chunk's BM25, its document's BM25 over the candidates of that
   * document, and its cosine, each normalised over the candidates, as a weighted mean: score in
   * 0..1, 1 = best chunk in the best document and top vector hit.
   */
  async search(input: SearchInput, signal?: AbortSignal): Promise<SearchResult[]> {
    return (await this.searchScored(input, signal)).results;
  }

  /**
   * {@link search}, with how close the knowledge base came to the query: `bestSimilarity` is the
   * highest cosine similarity (0..1) between the query's vector and a chunk (in hybrid mode, the
   * query's vector after feedback, over the vector candidates); null when nothing was found.
   */
  searchScored(input: SearchInput, signal?: AbortSignal): Promise<{ results: SearchResult[]; bestSimilarity: number | null }> {
    return inSpan('search', { 'kb.search.mode': input.mode ?? this.defaultMode, 'kb.search.top_k': input.topK }, async (span) => {
      const scored = await this.scored(input, signal);
      span?.setAttribute('kb.search.results', scored.results.length);
      return scored;
    });
  }

  private async scored(input: SearchInput, signal?: AbortSignal): Promise<{ results: SearchResult[]; bestSimilarity: number | null }> {
    const namespaces = searchedNamespaces(input);
    const vector = await this.embedQuery(input.query, signal);
    // Relevance floor: with word vectors, a result must hold a word of the query (a match
    // without one is a hashing collision), so a query nothing matches finds nothing.
    const lexical = this.embedder.lexical === true;
    if ((input.mode ?? this.defaultMode) === 'semantic') {
      const hits = await this.repository.nearest(vector, namespaces, input.topK + DUPLICATE_SLACK);
      const terms = lexical ? new Set(hybridLexicalAnalyzer(input.query)) : undefined;
      const found = hits
        .filter((h) => !terms || this.analyses.analyse(h.chunkId, chunkSearchText(h.headingPath, h.content)).terms.some((t) => terms.has(t)))
        .map(({ raw, tokenCount: _tokenCount, ...hit }) => ({ ...hit, score: clampUnit(1 - raw) }));
      const best = found[0]?.score ?? null;
      const results = collapseIdentical(withoutFragments(found), input.topK, fragmentsOf(found));
      return { results, bestSimilarity: results.length > 0 ? best : null };
    }
    const depth = Math.max(input.depth ?? HYBRID_DEFAULTS.depth, input.topK);
    const words = lexicalQueryText(input.query);
    const limit = input.topK + DUPLICATE_SLACK;
    const { ranked: rescored, lexical: lexicalHits, nearest: vectorHits, wordFrequencies } = await this.repository.hybridCandidates({
      query: words,
      words: hybridQueryTokens(words),
      vector,
      namespaces,
      depth,
      feedbackDocs: HYBRID_DEFAULTS.feedbackDocs,
      feedbackBeta: HYBRID_DEFAULTS.feedbackBeta,
      // hybridRank's parameters, computed in the statement from the terms stored with each chunk:
      // only the results' texts are read.
      rescore: {
        terms: hybridQueryTerms(words),
        k1: HYBRID_DEFAULTS.k1,
        b: HYBRID_DEFAULTS.b,
        weights: HYBRID_DEFAULTS.weights,
        limit,
        requireTerm: lexical,
      },
    });
    if (rescored) {
      const results = collapseIdentical(withoutFragments(rescored.hits), input.topK, fragmentsOf(rescored.hits));
      return { results, bestSimilarity: rescored.bestSimilarity !== null && results.length > 0 ? clampUnit(rescored.bestSimilarity) : null };
    }
    // Ranked here from the candidates' texts: a query the first lexical round did not settle, or a
    // candidate written before chunks stored their terms (until the backfill reaches it).
    const { ranked, byId, similarity } = rankCandidates(words, { lexical: lexicalHits, nearest: vectorHits, wordFrequencies }, await this.repository.corpusStats(), {
      limit,
      cache: this.analyses,
      requireTerm: lexical,
    });
    const results = collapseIdentical(
      ranked.map(({ id, score }) => {
        const { raw: _raw, tokenCount: _tokenCount, fragment: _fragment, ...hit } = byId.get(id)!;
        return { ...hit, score };
      }),
      input.topK,
      fragmentsOf(byId.values()),
    );
    const best = Math.max(...similarity.values());
    return { results, bestSimilarity: similarity.size > 0 && results.length > 0 ? clampUnit(best) : null };
  }
}
