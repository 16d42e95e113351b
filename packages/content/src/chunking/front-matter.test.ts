import { cpuStopwatch } from '@kb/vitest-config/cpu-time';
import { describe, expect, it } from 'vitest';
import { findFrontMatter, parseSimpleToml } from './front-matter.ts';
import { chunkMarkdown } from './index.ts';

const allContent = (content: string): string =>
  chunkMarkdown({ title: 'Doc', content })
    .parents.flatMap((parent) => parent.children.map((child) => child.content))
    .join('\n');

describe('front matter', () => {
  it('parses YAML front matter into metadata and keeps it out of the chunks', () => {
    const doc = chunkMarkdown({
      title: 'Doc',
      content: '---\ntitle: Quick start\nweight: 10\ntags: [a, b]\nparams:\n  minVersion: v0.1\n---\n\n# Intro\n\nHello.\n',
    });
    expect(doc.metadata).toEqual({ title: 'Quick start', weight: 10, tags: ['a', 'b'], params: { minVersion: 'v0.1' } });
    for (const parent of doc.parents) {
      expect(parent.content).not.toContain('minVersion');
      for (const child of parent.children) expect(child.content).not.toContain('weight');
    }
    expect(doc.parents.map((parent) => parent.headingPath)).toEqual(['Doc > Intro']);
  });

  it('gives {} for invalid YAML without losing the body', () => {
    const doc = chunkMarkdown({ title: 'Doc', content: '---\ntitle: [unclosed\n  : : bad\n---\nBody text survives.\n' });
    expect(doc.metadata).toEqual({});
    expect(doc.parents).toHaveLength(1);
    expect(doc.parents[0]?.children[0]?.content).toBe('Body text survives.');
  });

  it('gives {} for YAML that is not a mapping', () => {
    expect(chunkMarkdown({ title: 'Doc', content: '---\n- a\n- b\n---\nText\n' }).metadata).toEqual({});
    expect(chunkMarkdown({ title: 'Doc', content: '---\njust a string\n---\nText\n' }).metadata).toEqual({});
    expect(chunkMarkdown({ title: 'Doc', content: '---\n---\nText\n' }).metadata).toEqual({});
  });

  it('rejects alias bombs quickly', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      'g: [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
    ].join('\n');
    const elapsed = cpuStopwatch();
    const doc = chunkMarkdown({ title: 'Doc', content: `---\n${bomb}\n---\nBody\n` });
    // A wide bound (about ten times the work on a 2-core machine): it tells linear work from the blow-up it guards against, not a fast machine from a slow one.
    expect(elapsed()).toBeLessThan(20_000);
    expect(doc.metadata).toEqual({});
    expect(allContent(`---\n${bomb}\n---\nBody\n`)).toBe('Body');
  });

  it('makes text the store cannot hold well formed, in values and keys', () => {
    const content = '---\na: "x\\0y"\nb: "\\x00"\n"k\\0": [ "\\ud800", "ok" ]\nc: "\\ud83d\\ude00"\n---\nBody\n';
    const doc = chunkMarkdown({ title: 'Doc', content });
    expect(doc.metadata).toEqual({ a: 'x\ufffdy', b: '\ufffd', 'k\ufffd': ['\ufffd', 'ok'], c: '\u{1f600}' });
    const toml = chunkMarkdown({ title: 'Doc', content: '+++\na = "x\\u0000y"\nb = "\\uD800"\n+++\nBody\n' });
    expect(toml.metadata).toEqual({ a: 'x\ufffdy', b: '\ufffd' });
  });

  it('gives {} for YAML that contains itself through an alias, keeping the body', () => {
    for (const yaml of ['y: &a [*a]', 'y: &a { self: *a }', 'x: 1\nz: &b [1, [2, *b]]']) {
      const doc = chunkMarkdown({ title: 'Doc', content: `---\n${yaml}\n---\nBody\n` });
      expect(doc.metadata).toEqual({});
      expect(JSON.stringify(doc.metadata)).toBe('{}');
      expect(allContent(`---\n${yaml}\n---\nBody\n`)).toBe('Body');
    }
    // Aliases that do not make a cycle are expanded.
    expect(chunkMarkdown({ title: 'Doc', content: '---\nbase: &b { a: 1 }\nother: *b\n---\nBody\n' }).metadata).toEqual({
      base: { a: 1 },
      other: { a: 1 },
    });
  });

  it('keeps front matter JSON data: non-finite numbers become null', () => {
    const doc = chunkMarkdown({ title: 'Doc', content: '---\ninf: .inf\nnan: .nan\nn: 3\n---\nBody\n' });
    expect(doc.metadata).toEqual({ inf: null, nan: null, n: 3 });
  });

  it('gives {} quickly for YAML whose keys are collections or aliases', () => {
    for (const yaml of [`${'? '.repeat(400)}v`, `${'? '.repeat(5_000)}v`, '? [a, b]\n: c', 'a: &k key\n*k : v']) {
      const elapsed = cpuStopwatch();
      const doc = chunkMarkdown({ title: 'Doc', content: `---\n${yaml}\n---\nBody\n` });
      // A wide bound (about ten times the work on a 2-core machine): it tells linear work from the blow-up it guards against, not a fast machine from a slow one.
      expect(elapsed()).toBeLessThan(10_000);
      expect(doc.metadata).toEqual({});
      expect(allContent(`---\n${yaml}\n---\nBody\n`)).toBe('Body');
    }
  });

  it('applies merge keys and keeps sets, binary and timestamps as JSON data', () => {
    const content = '---\nbase: &b { x: 1 }\nm:\n  <<: *b\n  y: 2\ns: !!set { a, b }\nbin: !!binary aGVsbG8=\nt: !!timestamp 2001-12-14\n---\nBody\n';
    expect(chunkMarkdown({ title: 'Doc', content }).metadata).toEqual({
      base: { x: 1 },
      m: { x: 1, y: 2 },
      s: ['a', 'b'],
      bin: 'aGVsbG8=',
      t: '2001-12-14T00:00:00.000Z',
    });
  });

  it('reads front matter with thousands of YAML errors or unknown tags on one line in linear time', () => {
    for (const yaml of [`k: "${'\\q'.repeat(40_000)}"`, `k: [${Array(20_000).fill('!t').join(',')}]`]) {
      const elapsed = cpuStopwatch();
      const doc = chunkMarkdown({ title: 'Doc', content: `---\n${yaml}\n---\nBody\n` });
      // A wide bound (about ten times the work on a 2-core machine): it tells linear work from the blow-up it guards against, not a fast machine from a slow one.
      expect(elapsed()).toBeLessThan(15_000);
      expect(allContent(`---\n${yaml}\n---\nBody\n`)).toBe('Body');
      expect(doc.parents).toHaveLength(1);
    }
  });

  it('does not let __proto__ keys pollute prototypes', () => {
    const doc = chunkMarkdown({ title: 'Doc', content: '---\n__proto__:\n  polluted: true\n---\nText\n' });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(doc.metadata)).toBe(Object.prototype);
  });

  it('parses simple TOML front matter (+++) and strips it', () => {
    const content = [
      '+++',
      'title = "Example \\"quoted\\""',
      "draft = false",
      'weight = 1_000',
      "date = 2024-05-26T09:10:33-07:00",
      "tags = ['a', \"b\"]",
      '# a comment',
      'multi = """',
      'skipped = "inside a multi-line string"',
      '"""',
      '[params]',
      'author.name = "Ann" # trailing comment',
      '[[menus]]',
      'ignored = 1',
      '+++',
      '',
      'Body.',
    ].join('\n');
    const doc = chunkMarkdown({ title: 'Doc', content });
    expect(doc.metadata).toEqual({
      title: 'Example "quoted"',
      draft: false,
      weight: 1000,
      date: '2024-05-26T09:10:33-07:00',
      tags: ['a', 'b'],
      params: { author: { name: 'Ann' } },
    });
    expect(allContent(content)).toBe('Body.');
    expect(parseSimpleToml('__proto__ = 1\nok = 2')).toEqual({ ok: 2 });
  });

  it('treats an unclosed or indented fence as ordinary text', () => {
    expect(findFrontMatter('---\ntitle: x\nno closing fence\n')).toBeNull();
    expect(findFrontMatter(' ---\na: 1\n---\n')).toBeNull();
    expect(findFrontMatter('---\na: 1\n---')).toEqual({ kind: 'yaml', end: 12, value: 'a: 1' });
    const doc = chunkMarkdown({ title: 'Doc', content: '---\ntitle: x\n\nThe text after it.\n' });
    expect(doc.metadata).toEqual({});
    expect(allContent('---\ntitle: x\n\nThe text after it.\n')).toContain('The text after it.');
  });

  it('returns no parents for empty documents and front-matter-only documents', () => {
    expect(chunkMarkdown({ title: 'Doc', content: '' })).toEqual({ metadata: {}, parents: [] });
    expect(chunkMarkdown({ title: 'Doc', content: '  \n\n\t\n' })).toEqual({ metadata: {}, parents: [] });
    expect(chunkMarkdown({ title: 'Doc', content: '---\ntitle: Only\n---\n' })).toEqual({
      metadata: { title: 'Only' },
      parents: [],
    });
    expect(chunkMarkdown({ title: 'Doc', content: '---\ntitle: Only\n---\n\n   \n' }).parents).toEqual([]);
    expect(chunkMarkdown({ title: 'Doc', content: '+++\ntitle = "Only"\n+++' })).toEqual({
      metadata: { title: 'Only' },
      parents: [],
    });
  });

  it('handles CRLF line endings and a byte order mark', () => {
    const doc = chunkMarkdown({ title: 'Doc', content: '\uFEFF---\r\ntitle: x\r\n---\r\n# Head\r\n\r\nLine one\r\nline two\r\n' });
    expect(doc.metadata).toEqual({ title: 'x' });
    expect(doc.parents[0]?.headingPath).toBe('Doc > Head');
    expect(doc.parents[0]?.children[0]?.content).toBe('Line one\nline two');
  });
});
