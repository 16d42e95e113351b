/**
 * Searching, as every door does it (REST and tRPC, the MCP `search` tool, `kbTools` through REST):
 * the caller's scope applied, the ranking run, and the search's own records (the query log, the
 * search metrics) written here, once, so that no adapter repeats them or forgets them.
 */
import type { Principal } from '../auth/principal.ts';
import { displayHeadingPath, sectionAnchor } from '../answers/types.ts';
import type { QueryLog } from '../insights/query-log.ts';
import { metrics, secondsSince } from '../telemetry/metrics.ts';
import type { SearchMode, SearchResult, SearchService } from './search.service.ts';

export interface SearchRequest {
  query: string;
  /** Namespaces asked for; null or empty: every namespace of the caller's scope. */
  namespaces?: readonly string[] | null;
  /** 1 to 20; default 5. */
  topK?: number;
  mode?: SearchMode;
}

export interface SearchHit extends SearchResult {
  /** With `url`: the anchor of the passage's section (its last heading below the title), to link `url#anchor`. */
  anchor?: string;
}

export const DEFAULT_SEARCH_TOP_K = 5;

export class SearchUseCase {
  constructor(
    private readonly search: SearchService,
    /** Where searches are recorded with their best score (knowledge gaps). */
    private readonly queryLog: QueryLog | undefined,
  ) {}

  async run(caller: Principal, request: SearchRequest, signal?: AbortSignal): Promise<SearchHit[]> {
    const namespaces = request.namespaces && request.namespaces.length > 0 ? request.namespaces : null;
    // Unasked, the mode the embedder ranks best in (hybrid for the built-in word vectors).
    const mode = request.mode ?? this.search.defaultMode;
    const began = performance.now();
    const { results, bestSimilarity } = await this.search.searchScored(
      { query: request.query, namespaces, scope: caller.namespaces, topK: request.topK ?? DEFAULT_SEARCH_TOP_K, mode },
      signal,
    );
    metrics.search(mode, secondsSince(began), results.length);
    // Buffered: written in batches, off the request's path.
    this.queryLog?.record({ kind: 'search', query: request.query, namespaces, bestScore: bestSimilarity, apiKeyId: caller.keyId });
    return results.map(withAnchor);
  }
}

/**
 * A result as the site shows its section (headings without attribute blocks), with the section's
 * anchor, as chat sources carry it (only with a url to append it to).
 */
export function withAnchor(result: SearchResult): SearchHit {
  const anchor = result.url !== undefined ? sectionAnchor(result.headingPath) : undefined;
  const shown = { ...result, headingPath: displayHeadingPath(result.headingPath) };
  return anchor !== undefined ? { ...shown, anchor } : shown;
}
