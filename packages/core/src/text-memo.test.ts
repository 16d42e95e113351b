import { describe, expect, it } from 'vitest';
import { TextMemo } from './text-memo.ts';

describe('TextMemo', () => {
  it('analyses a text once while it is kept, and drops the least recently used beyond its capacity', () => {
    const analysed: string[] = [];
    const memo = new TextMemo((text: string) => (analysed.push(text), text.length), 2);
    expect(memo.get('one')).toBe(3);
    expect(memo.get('three')).toBe(5);
    expect(memo.get('one')).toBe(3);
    expect(analysed).toEqual(['one', 'three']);
    // 'three' is the least recently used: it goes, 'one' stays.
    expect(memo.get('seven')).toBe(5);
    expect(memo.size).toBe(2);
    memo.get('one');
    memo.get('three');
    expect(analysed).toEqual(['one', 'three', 'seven', 'three']);
  });
});
