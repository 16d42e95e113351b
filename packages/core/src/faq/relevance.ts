/**
 * Whether retrieved passages are about the FAQ's topic at all. Retrieval always returns its best
 * candidates, even for a topic the knowledge base never mentions (the vector side has nearest
 * neighbours for anything), so the FAQ checks what the passages say before writing from them: a
 * passage is on topic when its heading trail and text hold at least half of the topic's content
 * words (by stem), each word weighted by how rare it is among the retrieved passages. A word
 * every passage holds ("Hugo" in the Hugo docs) then counts for little: a passage about "Hugo
 * Pipes" must say "pipes".
 */
import { analyze, EXTENDED_STOP_WORDS } from '@kb/content';
import type { Passage } from '../answers/types.ts';

type Text = Pick<Passage, 'headingPath' | 'content'>;

/** The topic's content words, stemmed and distinct. */
export function topicTerms(topic: string): string[] {
  return [...new Set(analyze(topic, { stopWords: EXTENDED_STOP_WORDS }))];
}

function termsOf(passage: Text): Set<string> {
  return new Set(analyze(`${passage.headingPath}\n${passage.content}`, { stopWords: EXTENDED_STOP_WORDS }));
}

/**
 * Each term's weight: its inverse frequency among the passages. A term no passage holds weighs as
 * much as the rarest one that some passage holds (it says nothing about which passage is on topic,
 * but a topic mostly made of such words is not about these passages).
 */
export function topicWeights(terms: readonly string[], passages: readonly Text[]): Map<string, number> {
  const held = passages.map(termsOf);
  const n = held.length;
  const weights = new Map<string, number>();
  for (const t of terms) {
    const df = held.filter((h) => h.has(t)).length;
    if (df > 0) weights.set(t, Math.log(1 + (n + 1) / (df + 0.5)));
  }
  const rarest = weights.size > 0 ? Math.max(...weights.values()) : 1;
  for (const t of terms) if (!weights.has(t)) weights.set(t, rarest);
  return weights;
}

/** Weighted share of `terms` a passage holds (its heading trail counts with its text). */
export function topicCoverage(passage: Text, terms: readonly string[], weights?: ReadonlyMap<string, number>): number {
  if (terms.length === 0) return 0;
  const held = termsOf(passage);
  let total = 0;
  let covered = 0;
  for (const t of terms) {
    const w = weights?.get(t) ?? 1;
    total += w;
    if (held.has(t)) covered += w;
  }
  return total > 0 ? covered / total : 0;
}

/** Whether a passage is on topic (see the module comment). */
export function isOnTopic(passage: Text, terms: readonly string[], weights?: ReadonlyMap<string, number>): boolean {
  return terms.length > 0 && topicCoverage(passage, terms, weights) >= 0.5 - 1e-9;
}
