import { createHash } from 'node:crypto';

/**
 * A topic as the cache compares it: Unicode NFKC, case folded, whitespace collapsed. Case folding
 * is approximated by upper- then lower-casing (so "ß" meets "SS" and "ss") with the final sigma
 * folded to sigma, then NFKC again (case mapping can leave text unnormalised).
 */
export function normaliseTopic(topic: string): string {
  return topic
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .replace(/ς/g, 'σ')
    .normalize('NFKC')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** The cache key of a topic in a scope and language. */
export function faqCacheKey(topic: string, scope: string, language: string): string {
  return createHash('sha256').update(JSON.stringify(['faq:1', scope, language, normaliseTopic(topic)])).digest('hex');
}
