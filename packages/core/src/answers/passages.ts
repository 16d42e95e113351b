/**
 * Passage retrieval for answers (chat and FAQ).
 *
 * standard: one hybrid search with the standalone query (a follow-up completed from the
 *   conversation); each hit is widened to its parent section ("small to big"); sections are
 *   ranked by their best hit and taken, best first, within the context budget, near-duplicates
 *   dropped.
 * smart: the standalone query and a few variants (written by the model when one is configured,
 *   else pseudo-relevance feedback terms from the first search's best sections), each searched,
 *   their rankings fused (reciprocal rank fusion), widened to sections, and the sections reranked
 *   (Voyage's reranker with VOYAGE_API_KEY, else the local one) before the budget is applied.
 */
import { EXTENDED_STOP_WORDS, analyze, estimateTokens } from '@kb/content';
import type { Logger } from '../logger.ts';
import { TextMemo } from '../text-memo.ts';
import { reciprocalRankFusion } from '../search/fusion.ts';
import type { SearchResult, SearchService } from '../search/search.service.ts';
import { contentWords, feedbackTerms, standaloneQuery } from './query.ts';
import { rerankTerms, type Reranker } from './rerank.ts';
import type { SectionHit, SectionsRepository } from './sections.repository.ts';
import type { HistoryMessage, Passage, RetrieveInput, Retrieval } from './types.ts';

/** Chunks a standard retrieval reads (as many as a search page of 20 results: its first five documents among them). */
const STANDARD_DEPTH = 20;
/**
 * Candidates standard retrieval's hybrid search reads from each ranking. On the Hugo evaluation
 * 40 found the answering page as often as 100, ranked it first once more, and cut the
 * retrieval's time by about a quarter.
 */
const STANDARD_CANDIDATES = 40;
/** Candidates each hybrid search of a smart retrieval reads from each ranking. */
const SMART_CANDIDATES = 100;
/** Chunks each query of a smart retrieval reads, and the fused chunks it widens. */
const SMART_DEPTH = 20;
const SMART_FUSED = 30;
/** Sections whose text feeds the pseudo-relevance feedback, and the terms it adds. */
const FEEDBACK_SECTIONS = 3;
const FEEDBACK_TERMS = 5;
/** Most distinct documents passages come from, by default. */
export const DEFAULT_MAX_DOCUMENTS = 5;
/** Two passages sharing this much of the smaller one's word trigrams are near-duplicates. */
const DUPLICATE_OVERLAP = 0.8;
/** Words of a message whose frequencies in the knowledge base are looked up. */
const MAX_WEIGHED_WORDS = 32;
/** Characters of a section shown to a reranker. */
const RERANK_TEXT_CHARS = 4_000;

/** Rewrites a question into a standalone query and a few variants (a language model). */
export interface QueryRewriter {
  rewrite(message: string, history: readonly HistoryMessage[], signal?: AbortSignal): Promise<{ query: string; variants: string[] }>;
}

export interface PassageRetrieverOptions {
  search: SearchService;
  sections: SectionsRepository;
  reranker: Reranker;
  /** Writes smart retrieval's standalone query and variants; without it they are built from the corpus. */
  rewriter?: QueryRewriter;
  logger: Logger;
  /** Default budget of the passages, in estimated tokens. */
  contextTokens: number;
}

/** A section found by a retrieval, with the hits that led to it. */
interface Candidate {
  section: SectionHit;
  hits: SectionHit[];
  score: number;
}

export class PassageRetriever {
  constructor(private readonly options: PassageRetrieverOptions) {}

  async retrieve(input: RetrieveInput, signal?: AbortSignal): Promise<Retrieval> {
    const history = input.history ?? [];
    const namespaces = input.namespaces && input.namespaces.length > 0 ? input.namespaces : null;
    const budget = input.budgetTokens ?? this.options.contextTokens;
    const maxDocuments = input.maxDocuments ?? DEFAULT_MAX_DOCUMENTS;
    if (input.mode === 'smart') return this.smart(input.message, history, namespaces, budget, maxDocuments, signal);
    const query = standaloneQuery(input.message, history);
    const { results: hits, bestSimilarity } = await this.scored(query, namespaces, input.depth ?? STANDARD_DEPTH, signal, STANDARD_CANDIDATES);
    const { sections, wordFrequencies } = await this.options.sections.sectionsAndFrequencies(
      hits.map((h) => h.chunkId),
      contentWords(input.message).slice(0, MAX_WEIGHED_WORDS),
    );
    const candidates = rankSections(hits.map((h) => ({ id: h.chunkId, score: h.score })), sections);
    // The documents in the search's own order: the pages a search for the question shows first are the answer's first sources.
    const documents = [...new Set(hits.map((h) => h.documentId))];
    return { query, passages: assemble(candidates, budget, maxDocuments, documents), bestSimilarity, wordFrequencies };
  }

  private async search(query: string, namespaces: readonly string[] | null, topK: number, signal?: AbortSignal, depth?: number): Promise<SearchResult[]> {
    return (await this.scored(query, namespaces, topK, signal, depth)).results;
  }

  private scored(
    query: string,
    namespaces: readonly string[] | null,
    topK: number,
    signal?: AbortSignal,
    depth?: number,
  ): Promise<{ results: SearchResult[]; bestSimilarity: number | null }> {
    signal?.throwIfAborted();
    return this.options.search.searchScored({ query, namespaces, topK, mode: 'hybrid', ...(depth ? { depth } : {}) }, signal);
  }

  private async smart(
    message: string,
    history: readonly HistoryMessage[],
    namespaces: readonly string[] | null,
    budget: number,
    maxDocuments: number,
    signal?: AbortSignal,
  ): Promise<Retrieval> {
    let query = standaloneQuery(message, history);
    let variants: string[] | undefined;
    if (this.options.rewriter) {
      try {
        const rewritten = await this.options.rewriter.rewrite(message, history, signal);
        query = rewritten.query;
        variants = rewritten.variants;
      } catch (error) {
        signal?.throwIfAborted();
        this.options.logger.warn({ err: error }, 'query rewrite failed; building the queries from the corpus');
      }
    }
    const [{ results: first, bestSimilarity }, wordFrequencies] = await Promise.all([
      this.scored(query, namespaces, SMART_DEPTH, signal, SMART_CANDIDATES),
      this.options.sections.chunkFrequencies(contentWords(message).slice(0, MAX_WEIGHED_WORDS)),
    ]);
    const lists: SearchResult[][] = [first];
    const known = new Map<string, SectionHit>();
    const remember = async (hits: readonly SearchResult[]) => {
      const missing = hits.map((h) => h.chunkId).filter((id) => !known.has(id));
      for (const s of await this.options.sections.sectionsOf(missing)) known.set(s.chunkId, s);
    };
    await remember(first);
    if (variants) {
      lists.push(...(await Promise.all(variants.map((v) => this.search(v, namespaces, SMART_DEPTH, signal, SMART_CANDIDATES)))));
    } else {
      // Pseudo-relevance feedback: words the best sections share that the other candidates do not.
      const ranked = rankSections(first.map((h) => ({ id: h.chunkId, score: h.score })), [...known.values()]);
      const texts = ranked.map((c) => `${c.section.headingPath}\n${c.section.sectionContent}`);
      const terms = feedbackTerms(query, texts.slice(0, FEEDBACK_SECTIONS), texts, FEEDBACK_TERMS);
      if (terms.length > 0) lists.push(await this.search(`${query} ${terms.join(' ')}`, namespaces, SMART_DEPTH, signal, SMART_CANDIDATES));
    }
    for (const list of lists.slice(1)) await remember(list);
    const fused = reciprocalRankFusion(
      lists.map((list) => list.map((h) => ({ id: h.chunkId, score: h.score }))),
      { limit: SMART_FUSED },
    );
    const candidates = rankSections(fused, [...known.values()]);
    const best = candidates[0]?.score ?? 1;
    const weights = await this.termWeights(query);
    const scores = await this.options.reranker.rerank(
      query,
      candidates.map((c) => ({
        heading: c.section.headingPath,
        text: c.section.sectionContent.slice(0, RERANK_TEXT_CHARS),
        prior: best > 0 ? c.score / best : 0,
      })),
      { weights },
      signal,
    );
    const reranked = candidates
      .map((c, i) => ({ ...c, score: scores[i] ?? 0 }))
      .sort((a, b) => b.score - a.score || (a.section.sectionId < b.section.sectionId ? -1 : 1));
    return { query, passages: assemble(reranked, budget, maxDocuments), bestSimilarity, wordFrequencies };
  }

  /** Inverse document frequencies of the query's content words in the corpus, by analysed term. */
  private async termWeights(query: string): Promise<Map<string, number>> {
    const words = contentWords(query).slice(0, MAX_WEIGHED_WORDS);
    const { chunks, frequencies } = await this.options.sections.chunkFrequencies(words);
    const weights = new Map<string, number>();
    const n = Math.max(chunks, 1);
    for (const word of words) {
      const df = Math.min(frequencies.get(word) ?? 0, n);
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const term of rerankTerms(word)) weights.set(term, Math.max(weights.get(term) ?? 0, idf));
    }
    return weights;
  }
}

/**
 * Hits grouped by section, best section first: a section scores its best hit, plus a tenth of
 * each further hit (a section several hits point at is more likely the one).
 */
function rankSections(hits: ReadonlyArray<{ id: string; score: number }>, sections: readonly SectionHit[]): Candidate[] {
  const byChunk = new Map(sections.map((s) => [s.chunkId, s]));
  const bySection = new Map<string, Candidate>();
  for (const hit of hits) {
    const section = byChunk.get(hit.id);
    if (!section) continue;
    const candidate = bySection.get(section.sectionId);
    if (!candidate) bySection.set(section.sectionId, { section, hits: [section], score: hit.score });
    else {
      candidate.hits.push(section);
      candidate.score += hit.score / 10;
    }
  }
  return [...bySection.values()].sort((a, b) => b.score - a.score || (a.section.sectionId < b.section.sectionId ? -1 : 1));
}

/** Word trigrams of a text, for near-duplicate detection. */
function wordTrigrams(text: string): Set<string> {
  const terms = analyze(text, { stopWords: EXTENDED_STOP_WORDS });
  const out = new Set<string>();
  if (terms.length < 3) {
    if (terms.length > 0) out.add(terms.join(' '));
    return out;
  }
  for (let i = 0; i + 2 < terms.length; i++) out.add(`${terms[i]} ${terms[i + 1]} ${terms[i + 2]}`);
  return out;
}

/** {@link wordTrigrams} of passages, by their text (the sets are only read). */
const shingles = new TextMemo(wordTrigrams, 256);

function nearDuplicate(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return false;
  let shared = 0;
  for (const s of small) if (large.has(s)) shared++;
  return shared / small.size >= DUPLICATE_OVERLAP;
}

/**
 * The passages given to an answerer, best first, within the budget, from at most `maxDocuments`
 * documents. First each of those documents (the first ones in `documentOrder`, the search's
 * ranking, else the first ones the candidates name) gets its best section, whole when it fits its share of the budget, else its hit
 * chunks, else its best hit chunk; then further sections, best first, while the budget lasts. So
 * a long first section cannot crowd out the pages search ranked next. Near-duplicates of a
 * passage already taken are dropped.
 */
function assemble(candidates: readonly Candidate[], budget: number, maxDocuments: number, documentOrder?: readonly string[]): Passage[] {
  const perPassage = Math.max(400, Math.floor(budget * 0.4));
  const chosen: Array<{ candidate: Candidate; content: string; tokens: number }> = [];
  const taken: Array<Set<string>> = [];
  const documents = new Set<string>();
  let used = 0;
  const bestOfEach = candidates.filter((c, i) => candidates.findIndex((o) => o.section.documentId === c.section.documentId) === i);
  const firstOfEach = documentOrder
    ? documentOrder.flatMap((id) => bestOfEach.filter((c) => c.section.documentId === id)).slice(0, maxDocuments)
    : bestOfEach.slice(0, maxDocuments);
  const share = Math.max(200, Math.floor(budget / Math.max(1, firstOfEach.length)));
  /** Whether the candidate was taken; `duplicates` says whether a near-duplicate may be. */
  const take = (candidate: Candidate, limit: number, duplicates = false): boolean => {
    if (budget - used < 50) return false;
    const { section } = candidate;
    if (!documents.has(section.documentId) && documents.size >= maxDocuments) return false;
    let content = section.sectionContent;
    let tokens = estimateTokens(content);
    if (tokens > limit || tokens > budget - used) {
      const hits = [...candidate.hits].sort((a, b) => a.chunkOrdinal - b.chunkOrdinal);
      content = hits.map((h) => h.chunkContent).join('\n\n');
      tokens = estimateTokens(content);
      if (tokens > limit || tokens > budget - used) {
        content = candidate.hits[0]!.chunkContent;
        tokens = estimateTokens(content);
      }
    }
    if (tokens > budget - used) return false;
    const words = shingles.get(content);
    if (!duplicates && taken.some((t) => nearDuplicate(t, words))) return false;
    taken.push(words);
    documents.add(section.documentId);
    used += tokens;
    chosen.push({ candidate, content, tokens });
    return true;
  };
  // A page search ranked first is a source even when its best section repeats another page's (a
  // shared fragment): then its next section that does not, else that repeated one.
  for (const first of firstOfEach) {
    const limit = Math.min(perPassage, share);
    const own = candidates.filter((c) => c.section.documentId === first.section.documentId);
    if (!own.some((candidate) => take(candidate, limit))) take(first, limit, true);
  }
  const already = new Set(chosen.map((c) => c.candidate));
  for (const candidate of candidates) if (!already.has(candidate)) take(candidate, perPassage);
  const order = new Map(candidates.map((c, i) => [c, i]));
  chosen.sort((a, b) => order.get(a.candidate)! - order.get(b.candidate)!);
  return chosen.map(({ candidate: { section, score, hits }, content, tokens }) => {
    const page = hits[0]!.chunkPage;
    return {
      documentId: section.documentId,
      title: section.title,
      slug: section.slug,
      namespace: section.namespace,
      ...(section.url ? { url: section.url } : {}),
      ...(page !== null && page !== undefined ? { page } : {}),
      headingPath: section.headingPath,
      content,
      ordinal: section.sectionOrdinal,
      score,
      tokens,
    };
  });
}
