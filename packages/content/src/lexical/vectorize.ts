/**
 * The vectors of the built-in embedder, which needs no model download and no API key (the
 * service's `Embedder` around it is core's LocalEmbedder).
 *
 * It is honest about being lexical: a vector is a feature-hashed bag of stemmed words, so two texts
 * are close when they share words, not when they merely mean the same thing (it knows no synonyms,
 * abbreviations or paraphrases). It exists so the service works offline; a neural model does better.
 *
 * Vector of a text, computed from that text alone (no corpus statistics, deterministic):
 *  1. Analyse with the shared tokenizer (analyze.ts), drop the extended English stop
 *     list ({@link EXTENDED_STOP_WORDS}), Porter-stem. Each distinct stem is one feature; a token
 *     joining letters and digits also counts its parts ("il6" -> il6, il, 6; word-delimiter).
 *  2. Weight = (1 + ln tf) x a fixed built-in prior standing in for the IDF the embedder cannot see:
 *       - stems that come from common general/academic-English words ({@link WEAK_WORDS}): x 0.5;
 *       - long stems (>= 9 characters; long words are rarer in any English, Zipf): x 1.3.
 *  3. Signed feature hashing: each feature is added to 4 pseudo-random components of the first
 *     `dimension - 1`, with pseudo-random signs and weight / 2 each. Signs make collisions cancel on
 *     average instead of inflating cosines; spreading a feature over several components turns the
 *     rare full-weight collisions into many small ones, which disturbs rankings less.
 *  4. The last component is reserved for texts without features (below). A constant document
 *     component there would soften cosine's bias towards short texts (+0.01 nDCG with exact
 *     search), but it gives every stored vector a large shared direction, and HNSW graphs built on
 *     such vectors lose most of their recall (SciFact through the service: 0.44 x BM25 instead of
 *     0.83 x), so documents and queries are treated alike.
 *  5. L2 normalisation, so cosine similarity equals the dot product. A text with no features
 *     (empty, or stop words only) maps to the unit vector on the reserved component.
 *
 * The constants were chosen on the SciFact *train* split (general design choices, no word lists
 * derived from data); see packages/cli/bench/retrieval-eval.ts for the evaluation.
 */
import { EXTENDED_STOP_WORDS, stem, tokenize } from './analyze.ts';

/**
 * Common general and academic-English words: reporting verbs, quantity and comparison words,
 * discourse nouns and the section headings of structured abstracts. They occur in almost any
 * technical or scholarly text, so they say little about its topic. Written from general English
 * usage, not extracted from any evaluation corpus. Matched on the lower-cased surface form.
 */
export const WEAK_WORDS: ReadonlySet<string> = new Set([
  'study', 'studies', 'studied', 'result', 'results', 'resulted', 'show', 'shows', 'showed', 'shown',
  'suggest', 'suggests', 'suggested', 'indicate', 'indicates', 'indicated', 'demonstrate',
  'demonstrates', 'demonstrated', 'report', 'reports', 'reported', 'find', 'finds', 'found',
  'finding', 'findings', 'observe', 'observed', 'observation', 'examine', 'examined', 'investigate',
  'investigated', 'compare', 'compared', 'comparison', 'use', 'uses', 'used', 'using', 'usage',
  'based', 'include', 'includes', 'included', 'including', 'total', 'conclusion', 'conclusions',
  'conclude', 'concluded', 'background', 'method', 'methods', 'objective', 'objectives', 'aim',
  'aims', 'aimed', 'purpose', 'design', 'designed', 'setting', 'data', 'analysis', 'analyses',
  'analyzed', 'analysed', 'significant', 'significantly', 'significance', 'associated',
  'association', 'associations', 'effect', 'effects', 'increase', 'increased', 'increases',
  'increasing', 'decrease', 'decreased', 'decreases', 'high', 'higher', 'highly', 'low', 'lower',
  'level', 'levels', 'new', 'novel', 'important', 'potential', 'potentially', 'role', 'present',
  'presented', 'provide', 'provides', 'provided', 'evidence', 'year', 'years', 'number', 'numbers',
  'two', 'three', 'first', 'second', 'different', 'difference', 'differences', 'similar', 'large',
  'small', 'group', 'groups', 'time', 'times', 'case', 'cases', 'type', 'types', 'approach',
  'model', 'models', 'factor', 'factors', 'process', 'processes', 'specific', 'general', 'common',
  'known', 'major', 'related', 'relative', 'respectively', 'value', 'values', 'rate', 'rates',
  'change', 'changes', 'changed', 'obtained', 'performed', 'identified', 'identify', 'determine',
  'determined', 'develop', 'developed', 'development', 'mechanism', 'mechanisms', 'activity',
  'function', 'functions', 'measure', 'measured', 'measures', 'measurement', 'response',
  'responses', 'condition', 'conditions', 'previously', 'recent', 'recently', 'current',
  'currently', 'possible', 'likely', 'due', 'following',
]);

/** Prior weight of {@link WEAK_WORDS}. */
const WEAK_WEIGHT = 0.5;
/** Stems at least this long get {@link LONG_WEIGHT}. */
const LONG_STEM = 9;
const LONG_WEIGHT = 1.3;
/** Components each feature is spread over. */
const HASHES = 4;

const LETTERS_DIGITS = /^([a-z]+)([0-9]+)$/;

export const LOCAL_EMBEDDER_VERSION = 'local-lexical-v1';

export interface LexicalVectorizerOptions {
  /**
   * Vector length (default 1024; at least 16). Vectors of different dimensions are not comparable,
   * so the dimension is part of the model name.
   */
  dimension?: number;
}

/** FNV-1a over UTF-16 code units with a seed, finished with murmur3's avalanche mix. */
function hash32(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ Math.imul(seed + 1, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Deterministic, feature-hashed vectors of texts (see the module comment). */
export class LexicalVectorizer {
  readonly model: string;
  readonly dimension: number;
  /** Per stem: HASHES signed slots (bucket * 2 + sign bit). */
  private readonly slotCache = new Map<string, Int32Array>();

  constructor(options: LexicalVectorizerOptions = {}) {
    const dimension = options.dimension ?? 1024;
    if (!Number.isInteger(dimension) || dimension < 16 || dimension > 16_000) {
      throw new RangeError('dimension must be an integer within 16..16000');
    }
    this.dimension = dimension;
    this.model = `${LOCAL_EMBEDDER_VERSION}-${dimension}`;
  }

  /** The unit vector of one text (documents and queries alike). */
  vector(text: string): Float32Array {
    const tfs = new Map<string, number>();
    const weak = new Set<string>();
    for (const token of tokenize(text)) {
      if (EXTENDED_STOP_WORDS.has(token)) continue;
      const s = stem(token);
      tfs.set(s, (tfs.get(s) ?? 0) + 1);
      if (WEAK_WORDS.has(token)) weak.add(s);
      // Only a token ending in a digit can join letters and digits: most never run the pattern.
      const last = token.charCodeAt(token.length - 1);
      const parts = last >= 48 && last <= 57 ? LETTERS_DIGITS.exec(token) : null;
      if (parts) {
        const letters = stem(parts[1]!);
        if (!EXTENDED_STOP_WORDS.has(letters)) tfs.set(letters, (tfs.get(letters) ?? 0) + 1);
        const digits = parts[2]!;
        if (!EXTENDED_STOP_WORDS.has(digits)) tfs.set(digits, (tfs.get(digits) ?? 0) + 1);
      }
    }
    const vector = new Float32Array(this.dimension);
    const reserved = this.dimension - 1;
    if (tfs.size === 0) {
      vector[reserved] = 1;
      return vector;
    }
    const share = 1 / Math.sqrt(HASHES);
    for (const [s, tf] of tfs) {
      let w = 1 + Math.log(tf);
      if (s.length >= LONG_STEM) w *= LONG_WEIGHT;
      if (weak.has(s)) w *= WEAK_WEIGHT;
      w *= share;
      const slots = this.slots(s);
      for (let r = 0; r < HASHES; r++) vector[slots[r]! >> 1]! += slots[r]! & 1 ? -w : w;
    }
    let norm2 = 0;
    for (let i = 0; i < vector.length; i++) norm2 += vector[i]! * vector[i]!;
    if (norm2 > 0) {
      const inv = 1 / Math.sqrt(norm2);
      for (let i = 0; i < vector.length; i++) vector[i]! *= inv;
    } else {
      // All features cancelled out (possible in tiny dimensions): fall back to the reserved axis.
      vector[reserved] = 1;
    }
    return vector;
  }

  private slots(feature: string): Int32Array {
    let slots = this.slotCache.get(feature);
    if (slots === undefined) {
      slots = new Int32Array(HASHES);
      const buckets = this.dimension - 1;
      for (let r = 0; r < HASHES; r++) {
        const h = hash32(feature, r);
        slots[r] = ((h % buckets) << 1) | (h >>> 31);
      }
      if (this.slotCache.size >= 200_000) this.slotCache.clear();
      this.slotCache.set(feature, slots);
    }
    return slots;
  }
}
