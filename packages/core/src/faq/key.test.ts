import { describe, expect, it } from 'vitest';
import { faqCacheKey, normaliseTopic } from './key.ts';

describe('FAQ cache keys', () => {
  it('normalise the topic: NFKC, case folded, whitespace collapsed', () => {
    expect(normaliseTopic('  Render\u00a0HOOKS\t\n menus ')).toBe('render hooks menus');
    expect(normaliseTopic('ﬁle Ｓｔｒａｓｓｅ')).toBe('file strasse');
    expect(normaliseTopic('Straße')).toBe(normaliseTopic('STRASSE'));
    expect(normaliseTopic('ΟΔΟΣ')).toBe(normaliseTopic('οδος'));
  });

  it('differ by scope and language, not by spelling of the same topic', () => {
    const key = faqCacheKey('Menus', 'user_docs', 'en');
    expect(faqCacheKey(' menus ', 'user_docs', 'en')).toBe(key);
    expect(faqCacheKey('menus', 'all', 'en')).not.toBe(key);
    expect(faqCacheKey('menus', 'user_docs', 'fr')).not.toBe(key);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });
});
