import { estimateRange } from './tokens.ts';

/** A trimmed, non-empty span of the source with its estimated token count. */
export interface Piece {
  start: number;
  end: number;
  tokens: number;
}

const enum Level {
  Sentence = 0,
  Line = 1,
  Word = 2,
  Character = 3,
}

/** Words after which a period does not end a sentence (lower case, without the period). */
const ABBREVIATIONS = new Set([
  'al', 'approx', 'cf', 'dept', 'dr', 'eg', 'esp', 'fig', 'figs', 'ie', 'inc', 'incl', 'jr', 'ltd',
  'mr', 'mrs', 'ms', 'no', 'nos', 'prof', 'resp', 'sec', 'sr', 'st', 'vol', 'vs',
]);

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xa0 || c === 0x3000;
}

/** Closing punctuation that may follow a sentence terminator. */
function isCloser(c: number): boolean {
  return (
    c === 0x29 || c === 0x5d || c === 0x22 || c === 0x27 || c === 0x2a || c === 0x5f || c === 0x60 ||
    c === 0x2019 || c === 0x201d || c === 0xbb || c === 0x300d || c === 0x300f || c === 0xff09 || c === 0x3011
  );
}

/** Full-width / CJK sentence terminators: they end a sentence without needing a space. */
function isCjkTerminator(c: number): boolean {
  return c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0xff61 || c === 0xff0e;
}

function isLetterOrDigit(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || (c >= 0xc0 && c < 0x250);
}

/** Trims whitespace off both ends of `[start, end)`. */
export function trimSpan(text: string, start: number, end: number): [number, number] {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return [start, end];
}

/** A `.` at `dot` that belongs to an abbreviation, an initial or a list number. */
function isAbbreviation(text: string, start: number, dot: number): boolean {
  let i = dot;
  while (i > start && dot - i < 12 && isLetterOrDigit(text.charCodeAt(i - 1))) i--;
  const word = text.slice(i, dot);
  if (word.length === 0) return false;
  if (word.length === 1) return true; // initials, "e.g", "i.e"
  if (/^\d+$/.test(word) && word.length <= 3) return true; // "1. Item", "v1.2. Next"
  return ABBREVIATIONS.has(word.toLowerCase());
}

/** Offsets in `(start, end)` where a new piece may begin, for the given level. */
function cutPoints(text: string, start: number, end: number, level: Level): number[] {
  const cuts: number[] = [];
  if (level === Level.Sentence) {
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      const western = c === 0x2e || c === 0x21 || c === 0x3f || c === 0x2026 || c === 0x061f || c === 0x0964;
      if (!western && !isCjkTerminator(c)) continue;
      let j = i + 1;
      while (j < end && (text.charCodeAt(j) === c || isCloser(text.charCodeAt(j)))) j++;
      if (western) {
        if (j >= end || !isSpace(text.charCodeAt(j))) continue;
        if (c === 0x2e && isAbbreviation(text, start, i)) continue;
        let k = j;
        let newline = false;
        while (k < end && isSpace(text.charCodeAt(k))) {
          if (text.charCodeAt(k) === 0x0a) newline = true;
          k++;
        }
        const next = text.charCodeAt(k);
        if (k < end && (newline || !(next >= 0x61 && next <= 0x7a))) cuts.push(k);
        i = k - 1;
      } else {
        while (j < end && isSpace(text.charCodeAt(j))) j++;
        if (j < end) cuts.push(j);
        i = j - 1;
      }
    }
  } else if (level === Level.Line) {
    for (let i = text.indexOf('\n', start); i >= 0 && i < end - 1; i = text.indexOf('\n', i + 1)) cuts.push(i + 1);
  } else {
    for (let i = start + 1; i < end; i++) {
      if (isSpace(text.charCodeAt(i - 1)) && !isSpace(text.charCodeAt(i))) cuts.push(i);
    }
  }
  return cuts;
}

/**
 * Cuts `text.slice(start, end)` into trimmed pieces of at most `max` estimated tokens, preferring
 * sentence boundaries, then line breaks, then spaces, then (for a single giant word) characters.
 * Pieces are contiguous in order; the whitespace between them is dropped.
 */
export function splitText(text: string, start: number, end: number, max: number, level: number = Level.Sentence): Piece[] {
  const [s, e] = trimSpan(text, start, end);
  if (s >= e) return [];
  const tokens = estimateRange(text, s, e);
  if (tokens <= max) return [{ start: s, end: e, tokens }];
  if (level >= Level.Character) return hardSplit(text, s, e, max, tokens);
  const cuts = cutPoints(text, s, e, level);
  if (cuts.length === 0) return splitText(text, s, e, max, level + 1);
  const pieces: Piece[] = [];
  let previous = s;
  for (let index = 0; index <= cuts.length; index++) {
    const cut = cuts[index] ?? e;
    const [ps, pe] = trimSpan(text, previous, cut);
    previous = cut;
    if (ps >= pe) continue;
    const pieceTokens = estimateRange(text, ps, pe);
    if (pieceTokens <= max) pieces.push({ start: ps, end: pe, tokens: pieceTokens });
    else for (const sub of splitText(text, ps, pe, max, level + 1)) pieces.push(sub);
  }
  return mergePieces(text, pieces, max);
}

/**
 * Merges consecutive pieces while they fit in `max`, aiming for evenly sized results (so a long
 * paragraph does not end with a tiny fragment). Relies on the estimate being subadditive.
 */
export function mergePieces(text: string, pieces: readonly Piece[], max: number): Piece[] {
  if (pieces.length <= 1) return [...pieces];
  let total = 0;
  const gaps: number[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i] as Piece;
    const previous = pieces[i - 1];
    const gap = previous ? estimateRange(text, previous.end, piece.start) : 0;
    gaps.push(gap);
    total += gap + piece.tokens;
  }
  const target = total / Math.ceil(total / max);
  const merged: Piece[] = [];
  let current: Piece | null = null;
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i] as Piece;
    if (current !== null) {
      const gap = gaps[i] ?? 0;
      const combined: number = current.tokens + gap + piece.tokens;
      if (combined <= max && current.tokens + gap + piece.tokens / 2 <= target) {
        current = { start: current.start, end: piece.end, tokens: combined };
        continue;
      }
      merged.push(current);
    }
    current = { ...piece };
  }
  if (current !== null) merged.push(current);
  return merged;
}

/** Character-level cut for text without usable boundaries (never splits a surrogate pair). */
function hardSplit(text: string, start: number, end: number, max: number, tokens: number): Piece[] {
  const pieces: Piece[] = [];
  let density = (end - start) / Math.max(1, tokens); // characters per token
  let pos = start;
  while (pos < end) {
    let length = Math.max(1, Math.floor(max * density * 0.95));
    let pieceEnd = Math.min(end, pos + length);
    let pieceTokens = estimateRange(text, pos, pieceEnd);
    while (pieceTokens > max && pieceEnd - pos > 1) {
      length = Math.max(1, Math.floor((pieceEnd - pos) * 0.75));
      pieceEnd = pos + length;
      pieceTokens = estimateRange(text, pos, pieceEnd);
    }
    const last = text.charCodeAt(pieceEnd - 1);
    if (last >= 0xd800 && last <= 0xdbff && pieceEnd < end) {
      pieceEnd += pieceEnd - pos > 1 ? -1 : 1;
      pieceTokens = estimateRange(text, pos, pieceEnd);
    }
    const [ps, pe] = trimSpan(text, pos, pieceEnd);
    if (ps < pe) pieces.push({ start: ps, end: pe, tokens: estimateRange(text, ps, pe) });
    if (pieceTokens > 0) density = (pieceEnd - pos) / pieceTokens;
    pos = pieceEnd;
  }
  return pieces;
}

/** The sentences of `text.slice(start, end)`, as trimmed `[start, end)` spans in order. */
export function sentenceSpans(text: string, start = 0, end = text.length): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let previous = start;
  for (const cut of [...cutPoints(text, start, end, Level.Sentence), end]) {
    const [s, e] = trimSpan(text, previous, cut);
    if (s < e) spans.push([s, e]);
    previous = cut;
  }
  return spans;
}
