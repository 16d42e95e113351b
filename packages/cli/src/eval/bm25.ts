/**
 * In-memory Okapi BM25 index (Lucene's formulation).
 *
 *   score(q, d) = sum over distinct query terms t of  qtf(t) * idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
 *   idf(t)      = ln(1 + (N - df + 0.5) / (df + 0.5))
 *
 * qtf is the number of times the term occurs in the analysed query (a repeated query word counts
 * more, as it does in a Lucene boolean query of the words). Document lengths are exact, not
 * Lucene's one-byte approximation, so scores differ from Lucene's in the last digits.
 */
import { analyze, type AnalyzeOptions } from '@kb/content';

export interface Bm25Options {
  /** Term-frequency saturation (default 0.9, the Anserini/BEIR baseline value). */
  k1?: number;
  /** Length normalisation strength, 0..1 (default 0.4, the Anserini/BEIR baseline value). */
  b?: number;
  /** Text analysis; defaults to Lucene's 33 English stop words and Porter stemming. */
  analyzer?: (text: string) => string[];
}

export interface Bm25Doc {
  id: string;
  text: string;
}

export interface ScoredId {
  id: string;
  score: number;
}

/** The default analyser: Lucene stop words + Porter stemming. */
export function defaultBm25Analyzer(options: AnalyzeOptions = {}): (text: string) => string[] {
  return (text) => analyze(text, options);
}

export class Bm25Index {
  readonly k1: number;
  readonly b: number;
  private readonly analyzer: (text: string) => string[];
  private readonly ids: string[] = [];
  private readonly lengths: number[] = [];
  private readonly vocabulary = new Map<string, number>();
  private readonly terms: string[] = [];
  private readonly postingDocs: number[][] = [];
  private readonly postingTfs: number[][] = [];
  /** Per document: its distinct term ids and their frequencies (for pseudo-relevance feedback). */
  private readonly docTermIds: Int32Array[] = [];
  private readonly docTermTfs: Int32Array[] = [];
  private totalLength = 0;
  private scratch = new Int32Array(0);
  /** Per-document length-normalisation term k1 * (1 - b + b * dl / avgdl), rebuilt lazily. */
  private norms: Float64Array | null = null;

  constructor(options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 0.9;
    this.b = options.b ?? 0.4;
    if (!(this.k1 >= 0)) throw new RangeError('k1 must be >= 0');
    if (!(this.b >= 0 && this.b <= 1)) throw new RangeError('b must be within 0..1');
    this.analyzer = options.analyzer ?? defaultBm25Analyzer();
  }

  /** Builds an index over the given documents. */
  static build(docs: Iterable<Bm25Doc>, options: Bm25Options = {}): Bm25Index {
    const index = new Bm25Index(options);
    for (const doc of docs) index.add(doc);
    return index;
  }

  /** Number of documents. */
  get size(): number {
    return this.ids.length;
  }

  /** Mean analysed document length. */
  get averageLength(): number {
    return this.ids.length > 0 ? this.totalLength / this.ids.length : 0;
  }

  /** Adds one document (ids are not checked for uniqueness). */
  add(doc: Bm25Doc): void {
    const docNo = this.ids.length;
    const terms = this.analyzer(doc.text);
    // Count with a scratch array indexed by term id (cheaper than a Map per document).
    const touched: number[] = [];
    for (const term of terms) {
      let id = this.vocabulary.get(term);
      if (id === undefined) {
        id = this.terms.length;
        this.vocabulary.set(term, id);
        this.terms.push(term);
        this.postingDocs.push([]);
        this.postingTfs.push([]);
      }
      if (id >= this.scratch.length) {
        const grown = new Int32Array(Math.max(1024, this.scratch.length * 2, id + 1));
        grown.set(this.scratch);
        this.scratch = grown;
      }
      if (this.scratch[id] === 0) touched.push(id);
      this.scratch[id]!++;
    }
    const termIds = Int32Array.from(touched);
    const termTfs = new Int32Array(touched.length);
    for (let j = 0; j < touched.length; j++) {
      const id = touched[j]!;
      const tf = this.scratch[id]!;
      this.scratch[id] = 0;
      this.postingDocs[id]!.push(docNo);
      this.postingTfs[id]!.push(tf);
      termTfs[j] = tf;
    }
    this.docTermIds.push(termIds);
    this.docTermTfs.push(termTfs);
    this.ids.push(doc.id);
    this.lengths.push(terms.length);
    this.totalLength += terms.length;
    this.norms = null;
  }

  /** Number of documents containing the (already analysed) term. */
  documentFrequency(term: string): number {
    const id = this.vocabulary.get(term);
    return id === undefined ? 0 : this.postingDocs[id]!.length;
  }

  /** Lucene's BM25 IDF of an analysed term (a term in no document gets the highest value). */
  idf(term: string): number {
    const n = this.ids.length;
    const df = this.documentFrequency(term);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  private getNorms(): Float64Array {
    if (this.norms) return this.norms;
    const n = this.ids.length;
    const avgdl = this.averageLength;
    const norms = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const dl = this.lengths[i] ?? 0;
      norms[i] = this.k1 * (1 - this.b + (avgdl > 0 ? (this.b * dl) / avgdl : 0));
    }
    this.norms = norms;
    return norms;
  }

  /** Scores every document against already analysed query terms (dense array, 0 = no match). */
  scoreTerms(queryTerms: readonly string[]): Float64Array {
    const qtf = new Map<string, number>();
    for (const term of queryTerms) qtf.set(term, (qtf.get(term) ?? 0) + 1);
    return this.scoreWeightedTerms(qtf);
  }

  /** Scores every document for weighted analysed terms (term -> weight, e.g. an expanded query). */
  scoreWeightedTerms(weights: ReadonlyMap<string, number>): Float64Array {
    const scores = new Float64Array(this.ids.length);
    const norms = this.getNorms();
    for (const [term, weight] of weights) {
      const id = this.vocabulary.get(term);
      if (id === undefined || weight === 0) continue;
      const w = weight * this.idf(term) * (this.k1 + 1);
      const docs = this.postingDocs[id]!;
      const tfs = this.postingTfs[id]!;
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i]!;
        const tf = tfs[i]!;
        scores[d]! += (w * tf) / (tf + norms[d]!);
      }
    }
    return scores;
  }

  /** Analyses text with the index's analyser. */
  analyze(text: string): string[] {
    return this.analyzer(text);
  }

  /** Top-k documents for a query, best first; documents matching no query term are not returned. */
  search(query: string, k = 10): ScoredId[] {
    return this.topK(this.scoreTerms(this.analyzer(query)), k);
  }

  /** External id of document number `docNo` (insertion order). */
  docId(docNo: number): string {
    const id = this.ids[docNo];
    if (id === undefined) throw new RangeError(`no document #${docNo}`);
    return id;
  }

  /** Analysed length of document number `docNo`. */
  docLength(docNo: number): number {
    return this.lengths[docNo] ?? 0;
  }

  /** Distinct analysed terms of document number `docNo` with their frequencies. */
  docTerms(docNo: number): Array<[term: string, tf: number]> {
    const ids = this.docTermIds[docNo];
    const tfs = this.docTermTfs[docNo];
    if (!ids || !tfs) throw new RangeError(`no document #${docNo}`);
    return Array.from(ids, (id, j) => [this.terms[id]!, tfs[j]!]);
  }

  /** Turns a dense score array into the best k hits (ties broken by insertion order). */
  topK(scores: Float64Array, k: number): ScoredId[] {
    return topKIndices(scores, k).map((i) => ({ id: this.ids[i]!, score: scores[i]! }));
  }
}

/**
 * Indices of the k largest positive values, largest first (ties: lower index first).
 * Uses a bounded min-heap, O(n log k).
 */
export function topKIndices(scores: ArrayLike<number>, k: number, minExclusive = 0): number[] {
  if (k <= 0) return [];
  const heap: number[] = [];
  // "worse" = lower score, or equal score and higher index.
  const worse = (a: number, b: number): boolean => {
    const sa = scores[a]!;
    const sb = scores[b]!;
    return sa < sb || (sa === sb && a > b);
  };
  const siftUp = (i: number): void => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const siftDown = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (!(s > minExclusive)) continue;
    if (heap.length < k) {
      heap.push(i);
      siftUp(heap.length - 1);
    } else if (worse(heap[0]!, i)) {
      heap[0] = i;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
}
