/**
 * Text analysis shared by the lexical ranker (BM25) and the local lexical embedder.
 *
 * Pipeline: NFKC normalisation -> Unicode lower-casing -> split into runs of letters, combining
 * marks and digits (everything else separates tokens), dropping an English possessive "'s" ->
 * CJK runs become overlapping character bigrams (a lone CJK character stays a unigram) ->
 * optional stop-word removal -> optional Porter stemming of ASCII-Latin words.
 */
import { stemmer } from 'stemmer';

/**
 * Lucene's default English stop set (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`, 33 words).
 * This is what Lucene/Anserini BM25 baselines use, so it is the set for the BM25 baseline.
 */
export const LUCENE_STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it',
  'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they',
  'this', 'to', 'was', 'will', 'with',
]);

/**
 * A larger English stop list: the usual ~180-word function-word list (as shipped by NLTK / the
 * Snowball project: pronouns, auxiliaries, determiners, prepositions, conjunctions, contraction
 * fragments) extended with further general-English function and filler words of the kind found in
 * the SMART list (e.g. "also", "however", "may", "within", "thus"). It contains no domain terms.
 * Superset of {@link LUCENE_STOP_WORDS}. Used by the local embedder, which has no IDF to discount
 * frequent words, so it needs a broader list.
 */
export const EXTENDED_STOP_WORDS: ReadonlySet<string> = new Set([
  ...LUCENE_STOP_WORDS,
  // pronouns
  'i', 'me', 'my', 'myself', 'we', 'our', 'ours', 'ourselves', 'you', 'your', 'yours', 'yourself',
  'yourselves', 'he', 'him', 'his', 'himself', 'she', 'her', 'hers', 'herself', 'its', 'itself',
  'them', 'theirs', 'themselves', 'what', 'which', 'who', 'whom', 'whose', 'those', 'one', 'ones',
  'oneself', 'something', 'anything', 'nothing', 'everything', 'someone', 'anyone', 'everyone',
  // auxiliaries and modals
  'am', 'were', 'been', 'being', 'have', 'has', 'had', 'having', 'do', 'does', 'did', 'doing',
  'done', 'can', 'could', 'shall', 'should', 'would', 'may', 'might', 'must', 'ought', 'cannot',
  // conjunctions, prepositions, adverbs of degree/time/place
  'because', 'until', 'while', 'about', 'against', 'between', 'through', 'during', 'before',
  'after', 'above', 'below', 'from', 'up', 'down', 'out', 'off', 'over', 'under', 'again',
  'further', 'once', 'here', 'when', 'where', 'why', 'how', 'all', 'any', 'both', 'each', 'few',
  'more', 'most', 'other', 'others', 'some', 'nor', 'only', 'own', 'same', 'so', 'than', 'too',
  'very', 'just', 'now', 'also', 'although', 'though', 'however', 'therefore', 'thus', 'hence',
  'whereas', 'whether', 'within', 'without', 'among', 'amongst', 'upon', 'via', 'per', 'across',
  'along', 'around', 'behind', 'beyond', 'towards', 'toward', 'onto', 'unto', 'throughout',
  'either', 'neither', 'yet', 'still', 'even', 'ever', 'never', 'often', 'already', 'always',
  'almost', 'rather', 'quite', 'much', 'many', 'several', 'another', 'every', 'else', 'otherwise',
  'indeed', 'since', 'thereby', 'therein', 'thereof', 'whereby', 'wherein', 'moreover',
  'furthermore', 'nevertheless', 'nonetheless', 'meanwhile', 'etc', 'et', 'al', 'ie', 'eg', 'vs',
  'let', 'lets', 'like', 'well', 'get', 'got', 'gets', 'go', 'goes', 'went', 'come', 'came',
  // contraction fragments left by splitting on the apostrophe
  's', 't', 'd', 'll', 'm', 'o', 're', 've', 'y', 'don', 'doesn', 'didn', 'isn', 'aren', 'wasn',
  'weren', 'hasn', 'haven', 'hadn', 'won', 'wouldn', 'shouldn', 'couldn', 'mustn', 'needn',
  'mightn', 'shan', 'ain',
]);

/** Letters, combining marks and digits of any script: the characters tokens are made of. */
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
/** Scripts written without spaces between words; their runs are indexed as character bigrams. */
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const ASCII_ONLY = /^[\x00-\x7f]*$/;
/** Words Porter's rules apply to: ASCII letters (and digits) only. */
const ASCII_WORD = /^[a-z0-9]+$/;

/** Character classes: 0 = separator, 1 = word character, 2 = CJK word character. */
const charClassCache = new Map<number, number>();
function charClass(cp: number): number {
  if (cp < 128) {
    return (cp >= 97 && cp <= 122) || (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) ? 1 : 0;
  }
  let c = charClassCache.get(cp);
  if (c === undefined) {
    const ch = String.fromCodePoint(cp);
    c = CJK_CHAR.test(ch) ? 2 : WORD_CHAR.test(ch) ? 1 : 0;
    charClassCache.set(cp, c);
  }
  return c;
}

const APOSTROPHES = new Set([39, 0x2019]);

/**
 * Splits text into lower-cased raw tokens (no stop-word removal, no stemming): maximal runs of
 * letters, combining marks and digits, with an English possessive "'s" dropped. Runs of CJK
 * characters yield overlapping character bigrams (a lone character stays a unigram), since those
 * scripts have no spaces between words.
 */
export function tokenize(text: string): string[] {
  const s = ASCII_ONLY.test(text) ? text.toLowerCase() : text.normalize('NFKC').toLowerCase();
  const out: string[] = [];
  const n = s.length;
  let i = 0;
  while (i < n) {
    let cp = s.codePointAt(i)!;
    let cls = charClass(cp);
    if (cls === 0) {
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    if (cls === 1) {
      const start = i;
      while (i < n) {
        cp = s.codePointAt(i)!;
        if (charClass(cp) !== 1) break;
        i += cp > 0xffff ? 2 : 1;
      }
      out.push(s.slice(start, i));
      // possessive: word + apostrophe + "s" + end of word
      if (APOSTROPHES.has(s.charCodeAt(i)) && s.charCodeAt(i + 1) === 115 && (i + 2 >= n || charClass(s.codePointAt(i + 2)!) === 0)) {
        i += 2;
      }
      continue;
    }
    // CJK run
    const chars: string[] = [];
    while (i < n) {
      cp = s.codePointAt(i)!;
      cls = charClass(cp);
      if (cls !== 2) break;
      const len = cp > 0xffff ? 2 : 1;
      chars.push(s.slice(i, i + len));
      i += len;
    }
    if (chars.length === 1) out.push(chars[0]!);
    else for (let j = 0; j + 1 < chars.length; j++) out.push(chars[j]! + chars[j + 1]!);
  }
  return out;
}

const stemCache = new Map<string, string>();
const STEM_CACHE_LIMIT = 200_000;

/** Porter stem of a lower-cased token; tokens that are not ASCII letters/digits are returned as is. */
export function stem(token: string): string {
  const cached = stemCache.get(token);
  if (cached !== undefined) return cached;
  const result = ASCII_WORD.test(token) && token.length > 2 ? stemmer(token) : token;
  if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
  stemCache.set(token, result);
  return result;
}

export interface AnalyzeOptions {
  /** Words dropped before stemming; defaults to {@link LUCENE_STOP_WORDS}. Pass an empty set to keep all. */
  stopWords?: ReadonlySet<string>;
  /** Apply Porter stemming (default true). */
  stemming?: boolean;
  /**
   * Also index the parts of tokens that join letters and digits ("il6" -> "il6", "il", "6"), like
   * Lucene's word-delimiter filter with preserveOriginal, so "IL6" and "IL-6" meet. Default false
   * (the plain analyser of the BM25 baseline).
   */
  wordDelimiter?: boolean;
}

const LETTERS_DIGITS = /^([a-z]+)([0-9]+)$/;

/** Tokenises, removes stop words and stems: the terms the lexical index and the embedder see. */
export function analyze(text: string, options: AnalyzeOptions = {}): string[] {
  const stopWords = options.stopWords ?? LUCENE_STOP_WORDS;
  const stemming = options.stemming ?? true;
  const wordDelimiter = options.wordDelimiter ?? false;
  const out: string[] = [];
  for (const token of tokenize(text)) {
    if (stopWords.has(token)) continue;
    out.push(stemming ? stem(token) : token);
    if (wordDelimiter) {
      const c = token.charCodeAt(token.length - 1);
      const parts = c >= 48 && c <= 57 ? LETTERS_DIGITS.exec(token) : null;
      if (parts) {
        const letters = parts[1]!;
        if (!stopWords.has(letters)) out.push(stemming ? stem(letters) : letters);
        out.push(parts[2]!);
      }
    }
  }
  return out;
}
