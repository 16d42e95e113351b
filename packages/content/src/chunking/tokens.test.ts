import { cpuStopwatch } from '@kb/vitest-config/cpu-time';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from './index.ts';
import { estimateRange } from './tokens.ts';

describe('estimateTokens', () => {
  it('is 0 for empty and whitespace-free of cost for single spaces', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens(' ')).toBe(0);
    expect(estimateTokens('word')).toBe(1);
    expect(estimateTokens('two words')).toBe(2);
  });

  it('is in the usual range for English prose (about 4 characters per token)', () => {
    const text =
      'Hugo is a static site generator written in Go, optimized for speed and designed for flexibility. ' +
      'With its advanced templating system and fast asset pipelines, Hugo renders a large site in seconds.';
    const ratio = text.length / estimateTokens(text);
    expect(ratio).toBeGreaterThan(3);
    expect(ratio).toBeLessThan(6);
  });

  it('counts CJK characters individually', () => {
    expect(estimateTokens('日本語のテキスト')).toBe(8);
    expect(estimateTokens('这是一个句子。')).toBe(7);
    expect(estimateTokens('한국어')).toBe(3);
  });

  it('handles emoji, RTL scripts and combining marks', () => {
    expect(estimateTokens('😀')).toBe(2);
    expect(estimateTokens('👍🏽')).toBe(4);
    expect(estimateTokens('مرحبا بالعالم')).toBeGreaterThanOrEqual(4);
    expect(estimateTokens('שלום עולם')).toBeGreaterThanOrEqual(3);
    expect(estimateTokens('e\u0301')).toBe(estimateTokens('e'));
    expect(estimateTokens('\u200b\u200f')).toBe(0);
  });

  it('grows with length and counts code punctuation', () => {
    expect(estimateTokens('a'.repeat(600))).toBe(100);
    expect(estimateTokens('1234567890')).toBe(4);
    expect(estimateTokens('{{< code-toggle file=hugo >}}')).toBeGreaterThan(5);
    expect(estimateTokens('line one\nline two\n\n    indented')).toBeGreaterThan(5);
  });

  it('never exceeds the sum of its parts when trimmed pieces are joined with whitespace', () => {
    const samples = ['alpha', 'beta123', '日本語', '😀', '-->', 'x', 'δοκιμή', 'مرحبا', '...', '42'];
    const gaps = [' ', '\n', '\n\n', '\n> ', '  \n  ', ''];
    for (const a of samples) {
      for (const b of samples) {
        for (const gap of gaps) {
          const joined = `${a}${gap}${b}`;
          const sum = estimateTokens(a) + estimateTokens(gap) + estimateTokens(b);
          expect(estimateTokens(joined), JSON.stringify(joined)).toBeLessThanOrEqual(sum);
        }
      }
    }
  });

  it('estimateRange equals estimateTokens of the slice', () => {
    const text = 'Some text, 日本語 and 😀 emoji.\n  code()';
    for (let start = 0; start < text.length; start += 3) {
      for (let end = start; end <= text.length; end += 5) {
        expect(estimateRange(text, start, end)).toBe(estimateTokens(text.slice(start, end)));
      }
    }
  });

  it('is fast: 1 MB in well under a second', () => {
    const text = 'The quick brown fox jumps over the lazy dog. 日本語のテキスト。 '.repeat(16_000);
    const elapsed = cpuStopwatch();
    const tokens = estimateTokens(text);
    // A wide bound (about ten times the work on a 2-core machine): it tells linear work from the blow-up it guards against, not a fast machine from a slow one.
    expect(elapsed()).toBeLessThan(10_000);
    expect(tokens).toBeGreaterThan(100_000);
  });
});
