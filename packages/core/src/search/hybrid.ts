/**
 * Hybrid ranking: lexical and vector candidates, rescored together.
 *
 * Recipe (parameters chosen on the SciFact train split, reported on test by bench/retrieval-eval.ts
 * and `kb eval`):
 *  1. Candidates. Lexical: the best `depth` BM25 hits of the full-text index. Vector: the query
 *     vector is moved towards the vectors of the top `feedbackDocs` lexical hits (Rocchio
 *     pseudo-relevance feedback, see prf.ts, weight `feedbackBeta`), then the best `depth` chunks
 *     by cosine with that vector.
 *  2. {@link hybridRank} rescores the union of both lists with the service's own analysis
 *     ({@link hybridLexicalAnalyzer}: Lucene stop words, Porter stemming, word-delimiter parts, so
 *     "IL6" meets "IL-6"), taking each query term's document frequency from the index:
 *       - chunk: BM25 (k1 0.9, b 0.4) of the candidate's own text;
 *       - document: BM25 of the document the candidate belongs to, as far as the candidates show
 *         it (the text of all its candidate chunks together), so a passage of a document that is
 *         about the query as a whole outranks an equally good passage of one that is not;
 *       - vector: the candidate's cosine from the vector ranking.
 *     Each signal is normalised over the candidates (BM25 divided by the best candidate's, cosine
 *     min-max over the vector hits) and the three are combined as a weighted mean.
 *     The search statement computes the same from the analysis each chunk stores at ingestion
 *     ({@link storedLexicalTerms}; SearchRepository.hybridCandidates), so that only the results'
 *     texts are read; hybridRank ranks from texts where those are not stored.
 *
 * Score semantics: the fused score is in 0..1, the weighted mean of the three normalised signals:
 * 1 = the best chunk lexically, in the best document, and the top vector hit. It is relative to the
 * query (the best hit of every query scores near 1), so it ranks and can be thresholded as
 * "fraction of this query's best match", not compared across queries as a probability.
 */
import { analyze, LUCENE_STOP_WORDS, stem, tokenize } from '@kb/content';

/** Analyser of the hybrid mode's lexical scoring: Lucene stop words, Porter, word-delimiter. */
export function hybridLexicalAnalyzer(text: string): string[] {
  return analyze(text, { wordDelimiter: true });
}

/**
 * Distinct words of a query the lexical side reads (the first ones); the vector side reads the
 * whole query. Each word costs a look-up in the full-text index, and a search query holds a
 * handful: this bounds what a query of thousands of distinct words costs (1,600 took 16-22 s).
 */
export const MAX_LEXICAL_QUERY_WORDS = 64;

/** `query` up to its {@link MAX_LEXICAL_QUERY_WORDS}-th distinct word (case-insensitive). */
export function lexicalQueryText(query: string, maxWords = MAX_LEXICAL_QUERY_WORDS): string {
  const seen = new Set<string>();
  const pattern = /\S+/g;
  for (let match = pattern.exec(query); match; match = pattern.exec(query)) {
    seen.add(match[0].toLowerCase());
    if (seen.size > maxWords) return query.slice(0, match.index).trimEnd();
  }
  return query;
}

export const HYBRID_DEFAULTS = Object.freeze({
  /**
   * Candidates taken from each ranking. 40 ranks as well as 100 did (SciFact test nDCG@10 0.6983
   * against 0.6938, train 0.7119 against 0.7136, Hugo questions 0.8568 against 0.8560) and reads,
   * analyses and returns less than half as many chunks.
   */
  depth: 40,
  /** Lexical hits used as Rocchio feedback for the vector query. */
  feedbackDocs: 3,
  /** Weight of the feedback centroid relative to the query vector. */
  feedbackBeta: 1,
  /** BM25 term-frequency saturation of the rescoring. */
  k1: 0.9,
  /** BM25 length normalisation of the rescoring. */
  b: 0.4,
  /** Weights of the chunk, document and vector signals (they sum to 1). */
  weights: Object.freeze({ chunk: 0.5, document: 0.35, vector: 0.15 }),
});

/** A candidate ranked by {@link hybridRank}, with its fused score in 0..1. */
export interface RankedHit {
  id: string;
  score: number;
}

/** A candidate of {@link hybridRank}: a chunk (or a whole document) from either ranking. */
export interface HybridCandidate {
  id: string;
  /** The document the candidate belongs to; candidates of one document share its document signal. */
  documentId: string;
  /** The text the full-text index holds for it (heading trail and content). */
  text: string;
  /**
   * Its length in the collection's own unit (the `averageTokenCount` unit of the statistics):
   * relates its analysed length to the collection's mean length.
   */
  tokenCount: number;
  /** Cosine similarity with the (feedback-moved) query vector, when the vector ranking returned it. */
  vectorScore?: number;
}

/** Collection statistics the rescoring weighs query terms and lengths with. */
export interface HybridStatistics {
  /** Units the document frequencies count (chunks), at least 1. */
  chunks: number;
  /** Documents those chunks belong to, at least 1. */
  documents: number;
  /** Mean `tokenCount` over all chunks. */
  averageTokenCount: number;
  /**
   * Chunks containing a query token (one of {@link hybridQueryTokens}), as the full-text index
   * matches it; undefined when the index ignores the token (a stop word of its own).
   */
  frequency(token: string): number | undefined;
}

export interface HybridRankOptions {
  weights?: { chunk: number; document: number; vector: number };
  k1?: number;
  b?: number;
  /** Hits to return (default all candidates). */
  limit?: number;
  /**
   * Analyses of candidate texts kept from earlier rankings, by candidate id: for candidates whose
   * id always names the same text (a stored chunk's).
   */
  cache?: CandidateAnalysisCache;
  /** Drop candidates that hold no term of the query (a vector match by a hashing collision of word vectors). */
  requireTerm?: boolean;
}

/** A text as {@link hybridLexicalAnalyzer} analyses it: its distinct terms, sorted, and their counts. */
export interface AnalysedText {
  terms: readonly string[];
  counts: Uint32Array;
  /** Terms in all. */
  length: number;
}

export function analyseText(text: string): AnalysedText {
  const counts = new Map<string, number>();
  const all = hybridLexicalAnalyzer(text);
  for (const term of all) counts.set(term, (counts.get(term) ?? 0) + 1);
  const terms = [...counts.keys()].sort();
  return { terms, counts: Uint32Array.from(terms, (t) => counts.get(t)!), length: all.length };
}

/** What the full-text index holds for a chunk (see the chunks table's search_tsv): its heading trail and content. */
export function chunkSearchText(headingPath: string, content: string): string {
  return `${headingPath} ${content}`;
}

/**
 * A chunk's text as {@link analyseText} reads it, in the form the store keeps it (the chunks
 * table's `lexical_terms`, JSON): its length in terms and each distinct term's count, so that the
 * statement of a hybrid search rescores its candidates without reading their texts.
 */
export function storedLexicalTerms(text: string): string {
  const analysed = analyseText(text);
  const counts: Record<string, number> = Object.create(null) as Record<string, number>;
  analysed.terms.forEach((term, i) => (counts[term] = analysed.counts[i]!));
  return JSON.stringify({ length: analysed.length, counts });
}

/** How often `term` occurs in an analysed text (binary search of its sorted terms). */
function termCount(text: AnalysedText, term: string): number {
  let lo = 0;
  let hi = text.terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const t = text.terms[mid]!;
    if (t === term) return text.counts[mid]!;
    if (t < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/**
 * Analysed candidate texts by candidate id, the least recently used dropped beyond `capacity`.
 * Analysing the text of a query's candidates is most of the rescoring's work, and the chunks of
 * one knowledge base come back query after query. An entry whose text length differs from the
 * candidate's is analysed again.
 */
export class CandidateAnalysisCache {
  private readonly entries = new Map<string, AnalysedText & { textLength: number }>();

  constructor(private readonly capacity = 10_000) {}

  analyse(id: string, text: string): AnalysedText {
    let entry = this.entries.get(id);
    if (entry !== undefined) this.entries.delete(id);
    if (entry === undefined || entry.textLength !== text.length) entry = { ...analyseText(text), textLength: text.length };
    this.entries.set(id, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }

  get size(): number {
    return this.entries.size;
  }
}

const LETTERS_DIGITS = /^([a-z]+)([0-9]+)$/;

interface QueryTerm {
  /** Raw tokens that analyse to the term. */
  tokens: string[];
}

/**
 * The terms of a query as {@link hybridLexicalAnalyzer} produces them, each with the raw tokens it
 * comes from (a token joining letters and digits also gives its parts, "il6" -> il, 6).
 */
function queryTerms(query: string): Map<string, QueryTerm> {
  const terms = new Map<string, QueryTerm>();
  const add = (token: string): void => {
    if (LUCENE_STOP_WORDS.has(token)) return;
    const term = stem(token);
    const entry = terms.get(term);
    if (!entry) terms.set(term, { tokens: [token] });
    else if (!entry.tokens.includes(token)) entry.tokens.push(token);
  };
  for (const token of tokenize(query)) {
    add(token);
    const parts = LETTERS_DIGITS.exec(token);
    if (parts) {
      add(parts[1]!);
      add(parts[2]!);
    }
  }
  return terms;
}

/**
 * The query's terms as {@link hybridRank} weighs them, in its order, each with the raw tokens
 * whose chunk frequencies give its IDF (the most frequent of them counts).
 */
export function hybridQueryTerms(query: string): Array<{ term: string; tokens: readonly string[] }> {
  return [...queryTerms(query)].map(([term, { tokens }]) => ({ term, tokens }));
}

/** The distinct raw query tokens whose document frequencies {@link hybridRank} needs. */
export function hybridQueryTokens(query: string): string[] {
  const tokens = new Set<string>();
  for (const term of queryTerms(query).values()) for (const token of term.tokens) tokens.add(token);
  return [...tokens];
}

/** Lucene's BM25 IDF; a document frequency above the collection size counts as the size. */
function idf(df: number, n: number): number {
  const d = Math.min(Math.max(df, 0), n);
  return Math.log(1 + (n - d + 0.5) / (d + 0.5));
}

/**
 * Rescores hybrid candidates (see the module comment): chunk BM25, document BM25 and vector
 * similarity, normalised over the candidates and averaged with `weights`. Best first, scores in
 * 0..1; ties are broken by id. Candidates with the same id are taken once (the first).
 */
export function hybridRank(
  query: string,
  candidates: readonly HybridCandidate[],
  statistics: HybridStatistics,
  options: HybridRankOptions = {},
): RankedHit[] {
  const weights = options.weights ?? HYBRID_DEFAULTS.weights;
  const k1 = options.k1 ?? HYBRID_DEFAULTS.k1;
  const b = options.b ?? HYBRID_DEFAULTS.b;
  const wSum = weights.chunk + weights.document + weights.vector;
  if (![weights.chunk, weights.document, weights.vector].every((w) => w >= 0) || !(wSum > 0)) {
    throw new RangeError('weights must be >= 0 and not all 0');
  }
  if (!(k1 >= 0)) throw new RangeError('k1 must be >= 0');
  if (!(b >= 0 && b <= 1)) throw new RangeError('b must be within 0..1');

  const seen = new Set<string>();
  const pool = candidates.filter((c) => !seen.has(c.id) && seen.add(c.id));
  if (pool.length === 0) return [];

  // Query term weights: IDF from the index's frequencies of the term's tokens (the most frequent
  // spelling counts). A term whose tokens the index all ignores is a stop word there: it is left out.
  const n = Math.max(1, statistics.chunks);
  const termIdf = new Map<string, number>();
  for (const [term, { tokens }] of queryTerms(query)) {
    let df: number | undefined;
    for (const token of tokens) {
      const f = statistics.frequency(token);
      if (f !== undefined) df = Math.max(df ?? 0, f);
    }
    if (df !== undefined) termIdf.set(term, idf(df, n));
  }

  // Per candidate: analysed length and the frequencies of the query terms in it.
  const lengths = new Float64Array(pool.length);
  const tfs: Array<Map<string, number>> = [];
  let analysed = 0;
  let units = 0;
  pool.forEach((c, i) => {
    const text = options.cache ? options.cache.analyse(c.id, c.text) : analyseText(c.text);
    const tf = new Map<string, number>();
    for (const term of termIdf.keys()) {
      const count = termCount(text, term);
      if (count > 0) tf.set(term, count);
    }
    lengths[i] = text.length;
    tfs.push(tf);
    analysed += text.length;
    units += Math.max(0, c.tokenCount);
  });
  // The collection's mean length in analysed terms, from its mean in its own unit and the
  // candidates' ratio between the two.
  const ratio = units > 0 && analysed > 0 ? analysed / units : 1;
  const avgChunk = Math.max(1e-9, statistics.averageTokenCount * ratio);
  const avgDocument = avgChunk * (n / Math.max(1, statistics.documents));

  const bm25 = (tf: ReadonlyMap<string, number>, length: number, avg: number): number => {
    const norm = k1 * (1 - b + (b * length) / avg);
    let s = 0;
    for (const [term, f] of tf) s += (termIdf.get(term)! * f * (k1 + 1)) / (f + norm);
    return s;
  };

  const chunkScores = pool.map((_, i) => bm25(tfs[i]!, lengths[i]!, avgChunk));

  const documents = new Map<string, { tf: Map<string, number>; length: number; score: number }>();
  pool.forEach((c, i) => {
    let d = documents.get(c.documentId);
    if (!d) documents.set(c.documentId, (d = { tf: new Map(), length: 0, score: 0 }));
    for (const [t, f] of tfs[i]!) d.tf.set(t, (d.tf.get(t) ?? 0) + f);
    d.length += lengths[i]!;
  });
  for (const d of documents.values()) d.score = bm25(d.tf, d.length, avgDocument);

  const maxChunk = Math.max(0, ...chunkScores);
  let maxDocument = 0;
  for (const d of documents.values()) maxDocument = Math.max(maxDocument, d.score);
  let vMin = Infinity;
  let vMax = -Infinity;
  for (const c of pool) {
    if (c.vectorScore === undefined) continue;
    vMin = Math.min(vMin, c.vectorScore);
    vMax = Math.max(vMax, c.vectorScore);
  }

  const kept = pool.flatMap((c, i) => (options.requireTerm && tfs[i]!.size === 0 ? [] : [{ c, i }]));
  const hits = kept.map(({ c, i }) => {
    const chunk = maxChunk > 0 ? chunkScores[i]! / maxChunk : 0;
    const document = maxDocument > 0 ? documents.get(c.documentId)!.score / maxDocument : 0;
    const vector = c.vectorScore === undefined ? 0 : vMax > vMin ? (c.vectorScore - vMin) / (vMax - vMin) : 1;
    const score = (weights.chunk * chunk + weights.document * document + weights.vector * vector) / wSum;
    return { id: c.id, score: Math.min(1, Math.max(0, score)) };
  });
  hits.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return options.limit === undefined ? hits : hits.slice(0, options.limit);
}
