/**
 * Fast, dependency-free token estimate.
 *
 * The goal is a number close to (and preferably a little above) what a BPE tokenizer such as
 * cl100k or Voyage's would report, without downloading a model. The text is walked once and cut
 * into runs of one character class; each run costs:
 *
 * - Latin words (ASCII letters/digits/underscore, Latin-1/Latin Extended letters):
 *   ceil(length / 6) when the run has a letter, ceil(length / 3) for pure digit runs;
 * - Greek/Cyrillic/Armenian words: ceil(length / 3); Hebrew/Arabic/Syriac words: ceil(length / 2);
 * - ASCII and general punctuation runs: ceil(length / 2);
 * - CJK ideographs, kana, Hangul, Indic and South-East Asian letters, other symbols: 1 per character;
 * - characters outside the Basic Multilingual Plane (emoji, rare ideographs): 2 per code point;
 * - whitespace: 1 for a run that contains a line break, plus 1 per 4 columns of indentation or
 *   other long space runs; single spaces are free (BPE merges them into the next word);
 * - combining marks, zero-width characters and variation selectors are free.
 *
 * Every run cost is subadditive (cost(ab) <= cost(a) + cost(b)), so the estimate of a
 * concatenation of trimmed pieces never exceeds the sum of the estimates of the pieces and of the
 * whitespace between them. The splitter relies on that to stay under its token budget without
 * re-measuring every candidate chunk.
 */

const enum Run {
  None = 0,
  Word = 1,
  Punct = 2,
  Space = 3,
  /** Greek, Cyrillic, Armenian. */
  Alpha3 = 4,
  /** Hebrew, Arabic, Syriac, Thaana, N'Ko and neighbours. */
  Alpha2 = 5,
}

/** Character classes for non-run characters (cost added directly). */
const enum Kind {
  Word = 0,
  WordLetter = 1,
  Punct = 2,
  Space = 3,
  Newline = 4,
  Alpha3 = 5,
  Alpha2 = 6,
  /** 1 token per character (CJK, symbols, other scripts). */
  Single = 7,
  /** Costs nothing and does not interrupt the current run. */
  Free = 8,
}

function classify(c: number): Kind {
  if (c < 0x80) {
    if (c >= 0x61 && c <= 0x7a) return Kind.WordLetter; // a-z
    if (c >= 0x41 && c <= 0x5a) return Kind.WordLetter; // A-Z
    if (c >= 0x30 && c <= 0x39) return Kind.Word; // 0-9
    if (c === 0x5f) return Kind.Word; // _
    if (c === 0x20 || c === 0x09) return Kind.Space;
    if (c === 0x0a || c === 0x0d) return Kind.Newline;
    if (c < 0x20 || c === 0x7f) return Kind.Space;
    return Kind.Punct;
  }
  if (c < 0x250) {
    if (c === 0xa0) return Kind.Space;
    if (c < 0xc0 || c === 0xd7 || c === 0xf7) return Kind.Punct;
    return Kind.WordLetter;
  }
  if (c < 0x300) return Kind.WordLetter; // IPA, spacing modifiers
  if (c < 0x370) return Kind.Free; // combining diacritics
  if (c < 0x590) return Kind.Alpha3;
  if (c < 0x900) return Kind.Alpha2;
  if (c >= 0x1e00 && c < 0x1f00) return Kind.WordLetter; // Latin Extended Additional
  if (c >= 0x1f00 && c < 0x2000) return Kind.Alpha3; // Greek Extended
  if (c >= 0x2000 && c < 0x2070) {
    if (c <= 0x200a || c === 0x202f || c === 0x205f) return Kind.Space;
    if (c === 0x2028 || c === 0x2029) return Kind.Newline;
    if ((c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f)) {
      return Kind.Free; // zero-width and bidi controls
    }
    return Kind.Punct;
  }
  if (c === 0x3000) return Kind.Space; // ideographic space
  if (c >= 0xfe00 && c <= 0xfe0f) return Kind.Free; // variation selectors
  if (c === 0xfeff) return Kind.Free;
  return Kind.Single;
}

function runCost(run: Run, length: number, hasLetter: boolean, newline: boolean): number {
  switch (run) {
    case Run.Word:
      return hasLetter ? Math.ceil(length / 6) : Math.ceil(length / 3);
    case Run.Punct:
      return Math.ceil(length / 2);
    case Run.Alpha3:
      return Math.ceil(length / 3);
    case Run.Alpha2:
      return Math.ceil(length / 2);
    case Run.Space:
      return (newline ? 1 : 0) + Math.floor(length / 4);
    default:
      return 0;
  }
}

/** Estimated number of model tokens in `text` (0 for the empty string). */
export function estimateTokens(text: string): number {
  return estimateRange(text, 0, text.length);
}

/** {@link estimateTokens} of `text.slice(start, end)` without building the slice. */
export function estimateRange(text: string, start: number, end: number): number {
  let total = 0;
  let run: Run = Run.None;
  let length = 0;
  let hasLetter = false;
  let newline = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      // Astral code point (emoji, CJK extension B+...): 2 tokens, and it ends the current run.
      total += runCost(run, length, hasLetter, newline) + 2;
      run = Run.None;
      length = 0;
      const next = i + 1 < end ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      continue;
    }
    if (c >= 0xdc00 && c <= 0xdfff) continue; // lone low surrogate
    const kind = classify(c);
    let next: Run;
    switch (kind) {
      case Kind.Free:
        continue;
      case Kind.Single:
        total += runCost(run, length, hasLetter, newline) + 1;
        run = Run.None;
        length = 0;
        continue;
      case Kind.Word:
      case Kind.WordLetter:
        next = Run.Word;
        break;
      case Kind.Punct:
        next = Run.Punct;
        break;
      case Kind.Space:
      case Kind.Newline:
        next = Run.Space;
        break;
      case Kind.Alpha3:
        next = Run.Alpha3;
        break;
      default:
        next = Run.Alpha2;
        break;
    }
    if (next !== run) {
      total += runCost(run, length, hasLetter, newline);
      run = next;
      length = 0;
      hasLetter = false;
      newline = false;
    }
    if (kind === Kind.Newline) newline = true;
    else if (kind === Kind.Space && c === 0x09) length += 3; // a tab is ~4 columns
    if (kind === Kind.WordLetter) hasLetter = true;
    if (kind !== Kind.Newline) length++;
  }
  return total + runCost(run, length, hasLetter, newline);
}
