/**
 * Context for a caller that writes answers with its own model: the passages the chat would answer
 * from, retrieved the way the chat retrieves them (the same retriever, standard mode), within the
 * caller's token budget. Every door (REST and tRPC, the MCP `get_context` tool, `kbTools` through
 * REST) calls this; it records its own query log entry and metrics.
 */
import type { Principal } from '../auth/principal.ts';
import type { PassageRetriever } from '../answers/passages.ts';
import { displayHeadingPath, sectionAnchor } from '../answers/types.ts';
import type { QueryLog } from '../insights/query-log.ts';
import { resolveNamespaces } from '../namespaces.ts';
import { metrics, secondsSince } from '../telemetry/metrics.ts';

/** The smallest budget a context call takes: below it no section of a few hundred tokens fits. */
export const MIN_CONTEXT_TOKENS = 200;
/** The largest budget a context call takes. */
export const MAX_CONTEXT_TOKENS = 32_000;

export interface ContextRequest {
  question: string;
  /** Namespaces asked for; null or empty: every namespace of the caller's scope. */
  namespaces?: readonly string[] | null;
  /** Estimated tokens the passages' text may hold together; default the chat's context budget. */
  maxTokens?: number;
}

export interface ContextPassage {
  documentId: string;
  title: string;
  slug: string;
  namespace: string;
  url?: string;
  /** With url: the anchor of the passage's section, to link `url#anchor`. */
  anchor?: string;
  /** Heading trail of the section, document title first, joined by " > ". */
  headingPath: string;
  /** The section's Markdown (or its matching chunks when the whole section is over budget). */
  content: string;
  /** Estimated tokens of `content`. */
  tokens: number;
}

export interface ContextResult {
  /** The passages, most relevant first. */
  passages: ContextPassage[];
  /** Estimated tokens of the passages' text together (never above maxTokens). */
  tokens: number;
  /** The budget applied. */
  maxTokens: number;
}

export class ContextUseCase {
  constructor(
    private readonly retriever: PassageRetriever,
    /** Where context questions are recorded with their best score (knowledge gaps, as searches). */
    private readonly queryLog: QueryLog | undefined,
    /** The budget when a call names none: the chat's (KB_CHAT_CONTEXT_TOKENS). */
    private readonly options: { defaultTokens: number },
  ) {}

  async run(caller: Principal, request: ContextRequest, signal?: AbortSignal): Promise<ContextResult> {
    // Outside the caller's scope is refused (403) before anything is searched.
    const namespaces = resolveNamespaces(request.namespaces, caller.namespaces);
    const maxTokens = Math.min(MAX_CONTEXT_TOKENS, Math.max(MIN_CONTEXT_TOKENS, request.maxTokens ?? this.options.defaultTokens));
    const began = performance.now();
    const retrieval = await this.retriever.retrieve({ message: request.question, namespaces, mode: 'standard', budgetTokens: maxTokens }, signal);
    metrics.context(secondsSince(began), retrieval.passages.length);
    const asked = request.namespaces && request.namespaces.length > 0 ? request.namespaces : null;
    this.queryLog?.record({ kind: 'search', query: request.question, namespaces: asked, bestScore: retrieval.bestSimilarity ?? null, apiKeyId: caller.keyId });
    const passages = retrieval.passages.map((p): ContextPassage => {
      const anchor = p.url !== undefined ? sectionAnchor(p.headingPath) : undefined;
      return {
        documentId: p.documentId,
        title: p.title,
        slug: p.slug,
        namespace: p.namespace,
        ...(p.url !== undefined ? { url: p.url } : {}),
        ...(anchor !== undefined ? { anchor } : {}),
        headingPath: displayHeadingPath(p.headingPath),
        content: p.content,
        tokens: p.tokens,
      };
    });
    return { passages, tokens: passages.reduce((sum, p) => sum + p.tokens, 0), maxTokens };
  }
}
