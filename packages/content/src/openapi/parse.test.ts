import { cpuStopwatch } from '@kb/vitest-config/cpu-time';
import { describe, expect, it } from 'vitest';
import { InvalidSpecError, MAX_NESTING_DEPTH, MAX_VALUES, parseSpec } from './index.ts';

function refusal(run: () => unknown): InvalidSpecError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSpecError);
    return error as InvalidSpecError;
  }
  throw new Error('expected an InvalidSpecError');
}

// A wide bound (about ten times the work on a 2-core machine): it tells linear work from the blow-up it guards against, not a fast machine from a slow one.
function timedRefusal(run: () => unknown, limitMs = 10_000): InvalidSpecError {
  const elapsed = cpuStopwatch();
  const error = refusal(run);
  expect(elapsed()).toBeLessThan(limitMs);
  return error;
}

describe('parseSpec', () => {
  it('refuses YAML whose mapping keys are collections or aliases, quickly, naming the line', () => {
    for (const [text, line] of [
      [`openapi: "3.0.0"\npaths:\n  k1:\n    ${'? '.repeat(115)}v\n`, 4],
      [`a: 1\n? [x, y]\n: z\n`, 2],
      [`a: &k key\n*k : value\n`, 2],
    ] as const) {
      const elapsed = cpuStopwatch();
      expect(() => parseSpec(text, 'yaml')).toThrow(InvalidSpecError);
      expect(() => parseSpec(text, 'yaml')).toThrow(new RegExp(`line ${line} uses a collection or an alias as a mapping key`));
      expect(elapsed()).toBeLessThan(10_000);
    }
    // Plain keys of every scalar kind stay fine.
    expect(parseSpec('1: a\ntrue: b\n"q": c\n? plain\n: d\n', 'yaml')).toEqual({ 1: 'a', true: 'b', q: 'c', plain: 'd' });
  });

  it('parses JSON and YAML to the same value', () => {
    const json = parseSpec('{"openapi": "3.0.0", "info": {"title": "T", "version": "1"}, "paths": {}}', 'json');
    const yaml = parseSpec('openapi: "3.0.0"\ninfo:\n  title: T\n  version: "1"\npaths: {}\n', 'yaml');
    expect(yaml).toEqual(json);
  });

  it('ignores a byte order mark', () => {
    expect(parseSpec('\uFEFF{"a": 1}', 'json')).toEqual({ a: 1 });
    expect(parseSpec('\uFEFFa: 1', 'yaml')).toEqual({ a: 1 });
  });

  it('reads YAML as YAML 1.2: dates, yes/no and octal-looking numbers stay as written', () => {
    const value = parseSpec('version: 2023-08-16\nflag: yes\ncode: 0777\nwhen: 2001-12-14t21:59:43.10-05:00\n', 'yaml');
    expect(value).toEqual({ version: '2023-08-16', flag: 'yes', code: 777, when: '2001-12-14t21:59:43.10-05:00' });
  });

  it('keeps a __proto__ key as data', () => {
    const json = parseSpec('{"__proto__": {"polluted": true}}', 'json') as Record<string, unknown>;
    const yaml = parseSpec('__proto__:\n  polluted: true\n', 'yaml') as Record<string, unknown>;
    for (const value of [json, yaml]) {
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.keys(value)).toEqual(['__proto__']);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports JSON syntax errors with a line and column', () => {
    expect(refusal(() => parseSpec('{\n  "openapi": "3.0.0",\n  "paths": }\n', 'json')).message).toBe(
      'JSON syntax error at line 3, column 12: unexpected "}\\n"',
    );
    expect(refusal(() => parseSpec('{"a": [1, 2', 'json')).message).toBe(
      'JSON syntax error at line 1, column 12: unexpected end of input',
    );
    expect(refusal(() => parseSpec('{"a": 1,}', 'json')).message).toMatch(/^JSON syntax error at line 1, column 9/);
  });

  it('reports YAML syntax errors with a line and column', () => {
    expect(refusal(() => parseSpec('openapi: 3.0.0\npaths:\n  /a: [1, 2\n', 'yaml')).message).toMatch(
      /^YAML syntax error at line \d+, column \d+: /,
    );
    expect(refusal(() => parseSpec('a: 1\na: 2\n', 'yaml')).message).toBe(
      'YAML syntax error at line 2, column 1: Map keys must be unique',
    );
    expect(refusal(() => parseSpec('x:\n  k: 1\n  j: 2\n  k: 3\n', 'yaml')).message).toBe(
      'YAML syntax error at line 4, column 3: Map keys must be unique',
    );
    expect(parseSpec('a: 1\n"1": x\n1: y\n', 'yaml')).toEqual({ a: 1, 1: 'y' });
    expect(refusal(() => parseSpec('a: 1\n---\nb: 2\n', 'yaml')).message).toContain('several YAML documents');
  });

  it('checks the keys of a mapping with 60,000 of them in linear time', () => {
    const big = `openapi: 3.0.0\nx-big:\n${Array.from({ length: 60_000 }, (_, i) => `  k${i}: ${i}`).join('\n')}\n`;
    const elapsed = cpuStopwatch();
    expect((parseSpec(big, 'yaml') as { 'x-big': Record<string, number> })['x-big']['k59999']).toBe(59_999);
    expect(elapsed()).toBeLessThan(20_000);
    expect(refusal(() => parseSpec(`${big}  k17: again\n`, 'yaml')).message).toBe('YAML syntax error at line 60003, column 3: Map keys must be unique');
  });

  it('reports thousands of YAML errors on one long line in linear time', () => {
    for (const n of [20_000, 80_000]) {
      const spec = `openapi: 3.0.0\ninfo: {title: t, version: "1"}\nx: "${'\\q'.repeat(n)}"\npaths: {}\n`;
      const elapsed = cpuStopwatch();
      expect(refusal(() => parseSpec(spec, 'yaml')).message).toMatch(/^YAML syntax error at line 3, column \d+: .*\(and \d+ more\)$/);
      expect(elapsed()).toBeLessThan(20_000);
    }
  });

  it('refuses empty input', () => {
    expect(refusal(() => parseSpec('', 'json')).message).toBe('the spec is empty');
    expect(refusal(() => parseSpec(' \n\t', 'yaml')).message).toBe('the spec is empty');
  });

  it('refuses a YAML alias bomb (billion laughs) quickly', () => {
    const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const lines = [`a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`];
    for (let index = 1; index < levels.length; index++) {
      const previous = `*${levels[index - 1]}`;
      lines.push(`${levels[index]}: &${levels[index]} [${Array(9).fill(previous).join(',')}]`);
    }
    const error = timedRefusal(() => parseSpec(`${lines.join('\n')}\n`, 'yaml'));
    expect(error.message).toContain('too many aliases');
  });

  it('accepts a few aliases', () => {
    expect(parseSpec('base: &base {type: string}\na: *base\nb: *base\n', 'yaml')).toEqual({
      base: { type: 'string' },
      a: { type: 'string' },
      b: { type: 'string' },
    });
  });

  it(`refuses nesting deeper than ${MAX_NESTING_DEPTH} levels, in JSON and YAML, quickly`, () => {
    const deep = 10_000;
    const cases: [string, 'json' | 'yaml'][] = [
      ['['.repeat(deep) + ']'.repeat(deep), 'json'],
      [`${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}`, 'json'],
      ['['.repeat(deep) + ']'.repeat(deep), 'yaml'],
      [`${'{a: '.repeat(deep)}1${'}'.repeat(deep)}`, 'yaml'],
      [Array.from({ length: 2_000 }, (_, level) => `${' '.repeat(level)}a:`).join('\n') + ' 1\n', 'yaml'],
      [Array.from({ length: 2_000 }, (_, level) => `${'  '.repeat(level)}-`).join('\n') + ' 1\n', 'yaml'],
      [`${'- '.repeat(deep)}1\n`, 'yaml'],
    ];
    for (const [text, format] of cases) {
      expect(timedRefusal(() => parseSpec(text, format)).message).toMatch(/^the spec nests deeper than 100 levels/);
    }
    // The refusals above never reached the YAML parser's recursion; it still works normally.
    expect(parseSpec('a: [[[1]]]\n', 'yaml')).toEqual({ a: [[[1]]] });
  });

  it('accepts nesting within the limit', () => {
    const depth = MAX_NESTING_DEPTH - 10;
    expect(() => parseSpec('['.repeat(depth) + ']'.repeat(depth), 'json')).not.toThrow();
    expect(() => parseSpec('['.repeat(depth) + ']'.repeat(depth), 'yaml')).not.toThrow();
    const block = Array.from({ length: depth }, (_, level) => `${'  '.repeat(level)}k${level}:`).join('\n') + ' 1\n';
    expect(() => parseSpec(block, 'yaml')).not.toThrow();
  });

  it('names where too-deep JSON nests', () => {
    const text = `{"paths": {"/a": ${'['.repeat(200)}${']'.repeat(200)}}}`;
    expect(refusal(() => parseSpec(text, 'json')).message).toMatch(/^the spec nests deeper than 100 levels \(at \/paths\/~1a\/0\/0/);
  });

  it(`refuses specs of more than ${MAX_VALUES.toLocaleString('en-US')} values`, () => {
    const text = `[${'0,'.repeat(MAX_VALUES)}0]`;
    expect(timedRefusal(() => parseSpec(text, 'json'), 20_000).message).toBe('the spec is too large: more than 5,000,000 values');
  });
});
