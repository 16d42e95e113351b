import { describe, expect, it } from 'vitest';
import { illFormedTextPath, isIllFormedText, wellFormedText } from './unicode.ts';

describe('ill-formed text', () => {
  it('finds NUL characters and unpaired surrogates, not surrogate pairs', () => {
    for (const bad of ['\u0000', 'a\u0000b', '\ud800', 'x\ud83d', '\udc00y', '\ude00\ud83d']) expect(isIllFormedText(bad), JSON.stringify(bad)).toBe(true);
    for (const good of ['', 'plain', '\u{1f600}', 'é\u0301', '\u0001\u001f', '\ufffd']) expect(isIllFormedText(good), JSON.stringify(good)).toBe(false);
  });

  it('replaces each with U+FFFD and keeps pairs', () => {
    expect(wellFormedText('a\u0000b\ud800c\u{1f600}\udc00')).toBe('a\ufffdb\ufffdc\u{1f600}\ufffd');
    const same = 'nothing to do';
    expect(wellFormedText(same)).toBe(same);
  });

  it('names the path of the first ill-formed string or key, at any depth', () => {
    expect(illFormedTextPath({ a: 'ok', b: ['ok', { c: 'x\u0000' }] })).toBe('b[1].c');
    expect(illFormedTextPath({ ['k\ud800']: 1 })).toBe('k\ud800');
    expect(illFormedTextPath('\u0000')).toBe('');
    expect(illFormedTextPath({ a: 1, b: null, c: [true, 'fine'] })).toBeUndefined();
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(illFormedTextPath(deep)).toMatch(/^(\[0\]){100000}$/);
  });
});
