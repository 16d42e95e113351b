/**
 * Whether retrieved passages are about the FAQ's topic at all. Retrieval always returns its best
 * candidates, even for a topic the knowledge base never mentions (the vector side has nearest
 * neighbours for anything), so the FAQ checks what the passages say before writing from them: a
 * passage is on topic when its heading trail and text hold at least half of the topic's content
 * words (by stem; one of one or two).
 */
import { analyze, EXTENDED_STOP_WORDS } from '../retrieval/text.ts';
import type { Passage } from '../answers/types.ts';

/** The topic's content words, stemmed and distinct. */
export function topicTerms(topic: string): string[] {
  return [...new Set(analyze(topic, { stopWords: EXTENDED_STOP_WORDS }))];
}

/** Share of `terms` a passage holds (its heading trail counts with its text). */
export function topicCoverage(passage: Pick<Passage, 'headingPath' | 'content'>, terms: readonly string[]): number {
  if (terms.length === 0) return 0;
  const held = new Set(analyze(`${passage.headingPath}\n${passage.content}`, { stopWords: EXTENDED_STOP_WORDS }));
  return terms.filter((t) => held.has(t)).length / terms.length;
}

/** Terms a passage must hold to be on topic. */
export function requiredTerms(terms: readonly string[]): number {
  return Math.max(1, Math.ceil(terms.length / 2));
}

/** Whether a passage is on topic (see the module comment). */
export function isOnTopic(passage: Pick<Passage, 'headingPath' | 'content'>, terms: readonly string[]): boolean {
  return terms.length > 0 && topicCoverage(passage, terms) * terms.length >= requiredTerms(terms) - 1e-9;
}
