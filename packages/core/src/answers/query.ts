/**
 * Queries built without a model: a follow-up completed from the conversation ("and on
 * Windows?" after "How do I install Hugo?"), and pseudo-relevance feedback terms from the best
 * passages of a first retrieval.
 */
import { EXTENDED_STOP_WORDS, stem, tokenize } from '@kb/content';
import type { HistoryMessage } from './types.ts';

/**
 * Words that open a message leaning on the previous one ("and on Windows?", "also for pages?").
 * Question words are not among them: "how do I ..." opens new questions as often as follow-ups.
 */
const CONNECTIVES = new Set(['and', 'or', 'but', 'also', 'so', 'then', 'same', 'instead', 'else', 'plus']);
/** Question words that lean on the previous message when "about" follows ("what about pages?"). */
const ABOUT_OPENERS = new Set(['what', 'how']);
/** Words that refer back to something said before. */
const REFERENCES = new Set(['it', 'its', 'this', 'that', 'these', 'those', 'them', 'they', 'same', 'former', 'latter']);
/** A message referring back with at most this many content words of its own leans on the conversation. */
const REFERRING_MESSAGE_TERMS = 3;
/** A message with at most this many content words ("Windows?") is read as a follow-up when there is history. */
const SHORT_MESSAGE_TERMS = 1;
/** Earlier user messages a follow-up takes its context from. */
const CONTEXT_MESSAGES = 2;
/** Context words added to a follow-up. */
const MAX_CONTEXT_TERMS = 10;

/** The content words of a text (no stop words, no one-letter tokens), in order, distinct. */
export function contentWords(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const token of tokenize(text)) {
    if (token.length < 2 || EXTENDED_STOP_WORDS.has(token) || seen.has(token)) continue;
    seen.add(token);
    out.push(token);
  }
  return out;
}

/**
 * Whether a message reads as a follow-up of the conversation rather than a question of its own:
 * it opens with a connective ("and", "also", "what about"), refers back ("it", "that") with
 * little of its own, or names a single thing ("Windows?"). Any other message stands alone, and is
 * retrieved as asked: history completes a follow-up, it does not bend a new question.
 */
export function isFollowUp(message: string): boolean {
  const tokens = tokenize(message);
  if (tokens.length === 0) return true;
  const words = contentWords(message).length;
  if (CONNECTIVES.has(tokens[0]!) && tokens.length <= 8) return true;
  if (ABOUT_OPENERS.has(tokens[0]!) && tokens[1] === 'about') return true;
  if (tokens.some((t) => REFERENCES.has(t)) && words <= REFERRING_MESSAGE_TERMS) return true;
  return words <= SHORT_MESSAGE_TERMS;
}

/**
 * The key terms of the conversation's recent questions that a follow-up leaves out: content
 * words of the last user messages, most recent first, not already in the message (by stem).
 */
export function historyKeyTerms(message: string, history: readonly HistoryMessage[], max = MAX_CONTEXT_TERMS): string[] {
  const present = new Set(contentWords(message).map(stem));
  const terms: string[] = [];
  const questions = history.filter((m) => m.role === 'user').slice(-CONTEXT_MESSAGES).reverse();
  for (const question of questions) {
    for (const word of contentWords(question.content)) {
      const stemmed = stem(word);
      if (present.has(stemmed)) continue;
      present.add(stemmed);
      terms.push(word);
      if (terms.length >= max) return terms;
    }
  }
  return terms;
}

/**
 * The message as a query that stands on its own: a follow-up gets the key terms of the recent
 * questions appended; any other message is returned as it is.
 */
export function standaloneQuery(message: string, history: readonly HistoryMessage[] = []): string {
  if (!history.some((m) => m.role === 'user') || !isFollowUp(message)) return message;
  const terms = historyKeyTerms(message, history);
  return terms.length === 0 ? message : `${message} ${terms.join(' ')}`;
}

/**
 * Expansion terms from feedback texts (the best passages of a first retrieval), RM3-like: a term
 * weighs its share of each feedback text, weighted by the text's rank, times its rarity among all
 * `candidates` (the texts the first retrieval returned): words the best passages share that the
 * rest do not. Terms already in the query are left out. Returns words as written, best first.
 */
export function feedbackTerms(query: string, feedback: readonly string[], candidates: readonly string[], max: number): string[] {
  if (feedback.length === 0 || max <= 0) return [];
  const surface = new Map<string, string>();
  const analyse = (text: string): string[] => {
    const out: string[] = [];
    for (const token of tokenize(text)) {
      if (token.length < 3 || EXTENDED_STOP_WORDS.has(token) || /^\d+$/.test(token)) continue;
      const term = stem(token);
      if (!surface.has(term)) surface.set(term, token);
      out.push(term);
    }
    return out;
  };
  const inQuery = new Set(analyse(query));
  const df = new Map<string, number>();
  for (const text of candidates) for (const term of new Set(analyse(text))) df.set(term, (df.get(term) ?? 0) + 1);
  const n = Math.max(candidates.length, 1);
  const weights = new Map<string, number>();
  feedback.forEach((text, rank) => {
    const terms = analyse(text);
    if (terms.length === 0) return;
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    const rankWeight = 1 / (1 + rank);
    for (const [t, f] of tf) {
      if (inQuery.has(t)) continue;
      weights.set(t, (weights.get(t) ?? 0) + rankWeight * (f / terms.length));
    }
  });
  const scored = [...weights].map(([term, w]) => ({ term, score: w * Math.log(1 + n / (df.get(term) ?? 1)) }));
  scored.sort((a, b) => b.score - a.score || (a.term < b.term ? -1 : 1));
  return scored.slice(0, max).map((s) => surface.get(s.term)!);
}
