import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { estimateYamlDepth } from './yaml-depth.ts';

/** Depth of containers in the parsed value (a scalar at the top is 0). */
function realDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, depth] = entry;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

const close = (text: string): void => {
  const estimate = estimateYamlDepth(text).depth;
  const real = realDepth(parseDocument(text).toJS());
  expect(Math.abs(estimate - real)).toBeLessThanOrEqual(1);
};

describe('estimateYamlDepth', () => {
  it('follows block and flow nesting', () => {
    close('a:\n  b:\n    c: 1\n');
    close('a: [1, [2, [3, {x: [4]}]]]\n');
    close('- - - x\n');
    close('a:\n  - b: 1\n    c:\n      - d\n');
    close('a: {b: [1,\n  2, {c: 3}],\n  d: 4}\ne: 5\n');
  });

  it('does not count text: block scalars, quoted strings, comments, plain scalars', () => {
    const deepCode = Array.from({ length: 300 }, (_, index) => `${' '.repeat(4 + index)}[{code}]`).join('\n');
    const text = [
      'description: |',
      deepCode,
      'folded: >-',
      '  [[[[ not flow',
      '',
      '  still text ]]]]',
      "quoted: '[[[ [ { '' ]'",
      'double: "{{{ \\" [[["',
      'plain: a [[[ b {{{ c',
      'key with [brackets]: value # comment [[[',
      '"quoted: key": [1]',
      'multi: "line one [[[',
      '  line two {{{"',
      'after: 1',
    ].join('\n');
    expect(parseDocument(text).errors).toEqual([]);
    expect(estimateYamlDepth(text).depth).toBeLessThanOrEqual(2);
  });

  it('reports the line where the depth peaks', () => {
    expect(estimateYamlDepth('a: 1\nb:\n  c:\n    d: [[1]]\ne: 2\n')).toEqual({ depth: 5, line: 4 });
  });
});
