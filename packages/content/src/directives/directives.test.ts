import { cpuStopwatch } from '@kb/vitest-config/cpu-time';
import { describe, expect, it } from 'vitest';
import { stripFragmentMarkers } from '../chunking/fragments.ts';
import { MAX_INCLUDE_DEPTH, resolveSiteDirectives, type LoadedInclude } from './index.ts';

const files = (entries: Record<string, string>) => (target: string): LoadedInclude | undefined => {
  const path = target.replace(/^\/+/, '');
  const text = entries[path];
  return text === undefined ? undefined : { path, text };
};

const resolve = (text: string, entries: Record<string, string> = {}, mdx = false) =>
  resolveSiteDirectives(text, { path: 'page.md', mdx, load: files(entries) });

describe('Hugo shortcodes', () => {
  it('turns code-toggle into a fenced block in the language it was written in', () => {
    const toml = resolve('Intro.\n\n{{< code-toggle file=hugo >}}\n[menus]\n[[menus.main]]\nname = "Home"\n{{< /code-toggle >}}\n\nAfter.\n');
    expect(toml.text).toBe('Intro.\n\n```toml\n[menus]\n[[menus.main]]\nname = "Home"\n```\n\nAfter.\n');
    expect(resolve('{{< code-toggle >}}\nmenus:\n  main: []\n{{< /code-toggle >}}').text).toBe('```yaml\nmenus:\n  main: []\n```');
    expect(resolve('{{< code-toggle >}}\n{"a": 1}\n{{< /code-toggle >}}').text).toBe('```json\n{"a": 1}\n```');
  });

  it('fences highlight with its language, on a line of its own, longer than any fence inside', () => {
    expect(resolve('Run {{< highlight go "linenos=table" >}}fmt.Println(1){{< /highlight >}} now.').text).toBe(
      'Run \n```go\nfmt.Println(1)\n``` now.',
    );
    expect(resolve('{{< highlight md >}}\n```sh\nls\n```\n{{< /highlight >}}').text).toBe('````md\n```sh\nls\n```\n````');
  });

  it('keeps the inner content of other paired shortcodes and leaves standalone ones out', () => {
    const result = resolve(
      'A {{< new-in 0.153.0 />}} feature.\n\n{{% note %}}\nRead **this**.\n{{% /note %}}\n\n{{< youtube w7Ft2ymGmfc >}}\n\nStray {{< /details >}}end.',
    );
    expect(result.text).toBe('A  feature.\n\n\nRead **this**.\n\n\n\n\nStray end.');
    expect(result.shortcodes).toBe(5);
  });

  it('gives ref and relref their target', () => {
    expect(resolve('See [the page]({{< ref "/content/page.md" >}}) and [x]({{< relref path="b.md" >}}).').text).toBe(
      'See [the page](/content/page.md) and [x](b.md).',
    );
  });

  it('shows commented shortcodes as the reader sees them, in code fences too', () => {
    expect(resolve('```\n{{</* highlight go */>}}\ncode\n{{</* /highlight */>}}\n```\n').text).toBe('```\n{{< highlight go >}}\ncode\n{{< /highlight >}}\n```\n');
    expect(resolve('Use {{%/* include "x.md" */%}}.').text).toBe('Use {{% include "x.md" %}}.');
  });

  it('leaves text that only looks like a shortcode, and Go templates, alone', () => {
    for (const text of ['a {{< >}} b', 'a {{< "quoted >}} b', '{{ .Title }} and {{< unclosed', 'x {{% %}} y', '{{<}}']) {
      expect(resolve(text).text).toBe(text);
    }
  });

  it('returns a page without directives unchanged, and keeps front matter as it is', () => {
    const plain = '\uFEFF---\r\ntitle: A\r\n---\r\nBody {{ .x }}\r\n';
    expect(resolve(plain).text).toBe(plain);
    expect(resolve('---\ntitle: "{{< x >}}"\n---\n{{< x >}}Body\n').text).toBe('---\ntitle: "{{< x >}}"\n---\nBody\n');
  });
});

describe('include', () => {
  it('expands an included page without its front matter, includes inside it too', () => {
    const result = resolve('# Menus\n\nProperties:\n\n{{% include "/_common/props.md" %}}\n\nMore.\n', {
      '_common/props.md': '---\n_comment: keep\n---\n\n`name`\n: The name.\n\n{{% include "_common/more.md" %}}\n',
      '_common/more.md': '`weight`\n: The weight. {{< new-in 1.0 />}}\n',
    });
    expect(result.text).toBe(
      '# Menus\n\nProperties:\n\n\n<!-- kb:fragment _common/props.md -->\n\n`name`\n: The name.\n\n\n<!-- kb:fragment _common/more.md -->\n\n' +
        '`weight`\n: The weight.\n\n<!-- kb:fragment-end -->\n\n<!-- kb:fragment-end -->\n\n\nMore.\n',
    );
    // What the reader sees: the included text in place.
    expect(stripFragmentMarkers(result.text)).toBe('# Menus\n\nProperties:\n\n\n`name`\n: The name.\n\n\n`weight`\n: The weight.\n\nMore.\n');
    expect(result.includes).toBe(2);
    expect(result.problems).toEqual([]);
  });

  it('marks only an include that has its line to itself, outside code', () => {
    const result = resolve('Text {{% include "a.md" %}} more.\n\n{{< highlight md >}}\n{{% include "a.md" %}}\n{{< /highlight >}}\n\n  {{% include "a.md" %}}\n', {
      'a.md': 'A = 1',
    });
    expect(result.text).toBe('Text A = 1 more.\n\n```md\nA = 1\n```\n\n  A = 1\n');
    expect(result.includes).toBe(3);
    // A name that could end the comment is written so that it cannot.
    expect(resolve('{{% include "odd -->name.md" %}}\n', { 'odd -->name.md': 'x' }).text).toBe(
      '\n<!-- kb:fragment odd%20--%3Ename.md -->\n\nx\n\n<!-- kb:fragment-end -->\n\n',
    );
  });

  it('leaves out and reports targets that are missing or include themselves', () => {
    const result = resolve('A {{% include "missing.md" %}} B {{% include "loop-a.md" %}} C', {
      'loop-a.md': 'in a {{% include "loop-b.md" %}}',
      'loop-b.md': 'in b {{% include "loop-a.md" %}}',
    });
    expect(result.text).toBe('A  B in a in b C');
    expect(result.problems).toEqual([
      { from: 'page.md', target: 'missing.md', reason: 'not found' },
      { from: 'loop-b.md', target: 'loop-a.md', reason: 'cycle' },
    ]);
    expect(resolve('{{% include "page.md" %}}', { 'page.md': 'self' }).problems[0]?.reason).toBe('cycle');
  });

  it('stops at a bounded depth, and bounds what a page may pull in', () => {
    const chain: Record<string, string> = {};
    for (let n = 0; n < 20; n++) chain[`p${n}.md`] = `${n} {{% include "p${n + 1}.md" %}}`;
    const deep = resolve('{{% include "p0.md" %}}', chain);
    expect(deep.includes).toBe(MAX_INCLUDE_DEPTH);
    expect(deep.problems).toEqual([{ from: `p${MAX_INCLUDE_DEPTH - 1}.md`, target: `p${MAX_INCLUDE_DEPTH}.md`, reason: 'too deep' }]);
    // Each level includes the next twice: 2^7 copies of 20,000 characters unless bounded.
    const fan: Record<string, string> = {};
    for (let n = 0; n < 7; n++) fan[`f${n}.md`] = `${'x'.repeat(20_000)} {{% include "f${n + 1}.md" %}} {{% include "f${n + 1}.md" %}}`;
    fan['f7.md'] = 'leaf';
    const wide = resolve('{{% include "f0.md" %}}', fan);
    expect(wide.includes).toBeGreaterThan(50);
    expect(wide.includes).toBeLessThan(254);
    expect(wide.problems.length).toBeGreaterThan(0);
    expect(wide.problems.every((p) => p.reason === 'too large')).toBe(true);
    expect(wide.text.length).toBeLessThan(2_100_000);
  });
});

describe('MDX', () => {
  const page = [
    "import Tabs from '@theme/Tabs';",
    "import TabItem from '@theme/TabItem';",
    '',
    'export const meta = { a: 1 };',
    '',
    '# Install',
    '',
    '{/* a comment */}',
    '<Tabs groupId="os" values={[{ label: "Linux", value: "linux" }]}>',
    '  <TabItem value="linux" label="Linux" default>',
    '    Run the <Kbd>installer</Kbd> as <b>root</b>:',
    '',
    '    ```sh',
    '    sudo ./install <Args />',
    '      --verbose',
    '    ```',
    '  </TabItem>',
    '</Tabs>',
    '',
    'Write `<Tabs>` to import nothing; <>fragment</> text.',
    '',
  ].join('\n');

  it('leaves out ESM and component tags, keeps their children and all code', () => {
    expect(resolve(page, {}, true).text).toBe(
      [
        '',
        '',
        '# Install',
        '',
        '',
        '',
        '',
        'Run the installer as <b>root</b>:',
        '',
        '```sh',
        'sudo ./install <Args />',
        '  --verbose',
        '```',
        '',
        '',
        '',
        'Write `<Tabs>` to import nothing; fragment text.',
        '',
      ].join('\n'),
    );
  });

  it('is only applied to MDX pages', () => {
    expect(resolve(page).text).toBe(page);
  });
});

describe('pathological input', () => {
  // Linear scans: these take about a second on an idle machine (MDX pages pay for remark's parse,
  // about 1 MB/s); a quadratic step would take minutes or hours.
  const WIDE_LIMIT_MS = 20_000;
  const cases: Array<[string, string, boolean]> = [
    ['unclosed shortcode openings', '{{< a '.repeat(200_000), false],
    ['unclosed percent openings', '{{% a '.repeat(200_000), false],
    ['nested paired shortcodes', `${'{{< note >}}'.repeat(50_000)}x${'{{< /note >}}'.repeat(50_000)}`, false],
    ['nested code shortcodes', `${'{{< highlight go >}}'.repeat(50_000)}x${'{{< /highlight >}}'.repeat(50_000)}`, false],
    ['closes of names never opened', `${'{{< a >}}'.repeat(50_000)}${'{{< /b >}}'.repeat(50_000)}`, false],
    ['unclosed JSX tags', '<Tabs a="x" '.repeat(20_000), true],
    ['unclosed JSX comments', '{/* '.repeat(50_000), true],
    ['nested components', `${'<A>\n'.repeat(10_000)}x${'</A>\n'.repeat(10_000)}`, true],
  ];
  it.each(cases)('%s', (_name, text, mdx) => {
    const elapsed = cpuStopwatch();
    const result = resolve(text, {}, mdx);
    expect(elapsed()).toBeLessThan(WIDE_LIMIT_MS);
    expect(typeof result.text).toBe('string');
  });
});
