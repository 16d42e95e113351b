import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { complexKeyOffset, duplicateKeyOffset, lineColumnAt } from './yaml-keys.ts';

const parse = (text: string) => parseDocument(text, { uniqueKeys: false });

describe('complexKeyOffset', () => {
  it('finds the first collection or alias used as a key, and nothing among plain keys', () => {
    expect(complexKeyOffset(parse('a: 1\nb:\n  c: [1, 2]\n'))).toBeNull();
    const flow = 'a: 1\n? [x, y]\n: 2\n';
    expect(complexKeyOffset(parse(flow))).toBe(flow.indexOf('[x'));
    const map = 'outer:\n  ? { k: v }\n  : 1\n';
    expect(complexKeyOffset(parse(map))).toBe(map.indexOf('{ k'));
    const alias = 'base: &b x\n*b : 2\n';
    expect(complexKeyOffset(parse(alias))).toBe(alias.indexOf('*b'));
  });
});

describe('duplicateKeyOffset', () => {
  it('finds a key that repeats an earlier key of its own mapping, outer mappings first', () => {
    expect(duplicateKeyOffset(parse('a: 1\nb:\n  a: 2\n'))).toBeNull();
    const nested = 'a: 1\nb:\n  x: 1\n  y: 2\n  x: 3\n';
    expect(duplicateKeyOffset(parse(nested))).toBe(nested.indexOf('x: 3'));
    const both = `${nested}a: 4\n`;
    expect(duplicateKeyOffset(parse(both))).toBe(both.indexOf('a: 4'));
  });
});

describe('lineColumnAt', () => {
  it('gives 1-based lines and columns', () => {
    const text = 'ab\ncde\n\nf';
    expect(lineColumnAt(text, 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnAt(text, 2)).toEqual({ line: 1, column: 3 });
    expect(lineColumnAt(text, 3)).toEqual({ line: 2, column: 1 });
    expect(lineColumnAt(text, 5)).toEqual({ line: 2, column: 3 });
    expect(lineColumnAt(text, 8)).toEqual({ line: 4, column: 1 });
  });
});
