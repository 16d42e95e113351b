/**
 * Confluence storage format to Markdown conversion speed, on pages generated here (no corpus
 * needed): headings, paragraphs with inline markup and links, nested lists, tables, code macros,
 * panels, expands, task lists and layouts, about 50 KB each.
 *
 *   cd packages/core && pnpm exec tsx bench/wiki-convert.bench.ts [--pages=200] [--kb=50] [--rounds=5]
 *
 * Prints throughput (MB/s of storage format) and the time per page, best of the rounds.
 */
import { parseArgs } from 'node:util';
import { storageToMarkdown } from '@kb/content';
import { prng } from '../test/fakes/fake-confluence.ts';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '200' },
    kb: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '5' },
  },
});
const pageCount = Math.max(1, Number(values.pages));
const pageBytes = Math.max(1, Number(values.kb)) * 1024;
const rounds = Math.max(1, Number(values.rounds));

const WORDS = (
  'service deployment cluster rollback latency budget incident owner queue worker cache region replica ' +
  'schema migration token request timeout retry backoff alert dashboard runbook release feature flag ' +
  'tenant quota index shard snapshot pipeline review approval on-call escalation customer contract'
).split(' ');

function page(seed: number, targetBytes: number): string {
  const next = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const words = (count: number): string => Array.from({ length: count }, () => pick(WORDS)).join(' ');
  const phrase = (): string => {
    const roll = next();
    if (roll < 0.08) return `<strong>${words(2)}</strong>`;
    if (roll < 0.14) return `<em>${words(2)}</em>`;
    if (roll < 0.22) return `<code>${pick(WORDS)}_${pick(WORDS)}()</code>`;
    if (roll < 0.26) return `<a href="https://docs.example.com/${pick(WORDS)}">${words(2)}</a>`;
    if (roll < 0.29) return `<ac:link><ri:page ri:content-title="${words(3)}" /><ac:plain-text-link-body><![CDATA[${words(2)}]]></ac:plain-text-link-body></ac:link>`;
    return words(3);
  };
  const sentence = (): string => {
    const text = Array.from({ length: 3 + Math.floor(next() * 4) }, phrase).join(' ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)} &ndash; it&rsquo;s ${Math.floor(next() * 100)}% done.`;
  };
  const paragraph = (): string => `<p>${Array.from({ length: 2 + Math.floor(next() * 3) }, sentence).join(' ')}</p>`;
  const list = (tag: string, depth = 0): string => {
    const items = Array.from({ length: 3 + Math.floor(next() * 3) }, () => {
      const nested = depth < 2 && next() < 0.2 ? list(next() < 0.5 ? 'ul' : 'ol', depth + 1) : '';
      return `<li><p>${sentence()}</p>${nested}</li>`;
    });
    return `<${tag}>${items.join('')}</${tag}>`;
  };
  const table = (): string => {
    const columns = 3 + Math.floor(next() * 3);
    const header = Array.from({ length: columns }, () => `<th><p><strong>${words(1)}</strong></p></th>`).join('');
    const rows = Array.from({ length: 4 + Math.floor(next() * 6) }, () => {
      const cells = Array.from({ length: columns }, () => `<td><p>${next() < 0.3 ? sentence() : words(2)}</p></td>`);
      return `<tr>${cells.join('')}</tr>`;
    });
    return `<table data-layout="default"><colgroup>${'<col style="width: 200.0px;" />'.repeat(columns)}</colgroup><tbody><tr>${header}</tr>${rows.join('')}</tbody></table>`;
  };
  const code = (): string => {
    const lines = Array.from({ length: 4 + Math.floor(next() * 12) }, () => `  const ${pick(WORDS)} = await ${pick(WORDS)}("${pick(WORDS)}", { retries: ${Math.floor(next() * 5)} }); // <${pick(WORDS)}> && more`);
    return (
      `<ac:structured-macro ac:name="code" ac:schema-version="1" ac:macro-id="${Math.floor(next() * 1e9)}">` +
      `<ac:parameter ac:name="language">${pick(['js', 'bash', 'sql', 'yaml'])}</ac:parameter>` +
      `<ac:plain-text-body><![CDATA[function run() {\n${lines.join('\n')}\n}]]></ac:plain-text-body></ac:structured-macro>`
    );
  };
  const panel = (): string =>
    `<ac:structured-macro ac:name="${pick(['info', 'note', 'warning', 'tip'])}" ac:schema-version="1"><ac:parameter ac:name="title">${words(2)}</ac:parameter>` +
    `<ac:rich-text-body>${paragraph()}</ac:rich-text-body></ac:structured-macro>`;
  const expand = (): string =>
    `<ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">${words(3)}</ac:parameter><ac:rich-text-body>${paragraph()}${list('ul')}</ac:rich-text-body></ac:structured-macro>`;
  const tasks = (): string => {
    const items = Array.from(
      { length: 2 + Math.floor(next() * 3) },
      (_, index) =>
        `<ac:task><ac:task-id>${index + 1}</ac:task-id><ac:task-status>${next() < 0.5 ? 'complete' : 'incomplete'}</ac:task-status><ac:task-body>${sentence()}</ac:task-body></ac:task>`,
    );
    return `<ac:task-list>${items.join('\n')}</ac:task-list>`;
  };
  const heading = (level: number): string =>
    `<h${level}>${words(3)} <ac:structured-macro ac:name="status"><ac:parameter ac:name="colour">Green</ac:parameter><ac:parameter ac:name="title">done</ac:parameter></ac:structured-macro></h${level}>`;

  const blocks: string[] = [];
  let bytes = 0;
  while (bytes < targetBytes) {
    const roll = next();
    const block =
      roll < 0.35 ? paragraph()
      : roll < 0.45 ? heading(2 + Math.floor(next() * 2))
      : roll < 0.57 ? list(next() < 0.5 ? 'ul' : 'ol')
      : roll < 0.67 ? table()
      : roll < 0.79 ? code()
      : roll < 0.87 ? panel()
      : roll < 0.93 ? expand()
      : tasks();
    blocks.push(block);
    bytes += Buffer.byteLength(block);
  }
  const cell = (content: string): string => `<ac:layout-cell>${content}</ac:layout-cell>`;
  const half = Math.floor(blocks.length / 2);
  return (
    `<ac:layout><ac:layout-section ac:type="two_equal">${cell(blocks.slice(0, half).join('\n'))}${cell(blocks.slice(half).join('\n'))}` +
    '</ac:layout-section></ac:layout>'
  );
}

const pages = Array.from({ length: pageCount }, (_, index) => page(index + 1, pageBytes));
const totalBytes = pages.reduce((sum, body) => sum + Buffer.byteLength(body), 0);

// Warm up the JIT before timing.
for (const body of pages.slice(0, 20)) storageToMarkdown(body);

/** CPU time of this process in ms: unlike wall time, barely affected by other processes. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

let bestWall = Number.POSITIVE_INFINITY;
let bestCpu = Number.POSITIVE_INFINITY;
let outputChars = 0;
for (let round = 0; round < rounds; round++) {
  outputChars = 0;
  const wall = performance.now();
  const cpu = cpuMs();
  for (const body of pages) outputChars += storageToMarkdown(body, { baseUrl: 'https://acme.atlassian.net/wiki' }).length;
  bestCpu = Math.min(bestCpu, cpuMs() - cpu);
  bestWall = Math.min(bestWall, performance.now() - wall);
}

const averageKb = totalBytes / pageCount / 1024;
const report = (label: string, ms: number): void => {
  const perPage = ms / pageCount;
  console.log(
    `${label}: ${(totalBytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s, ${perPage.toFixed(3)} ms per page, ` +
      `${((perPage * 50) / averageKb).toFixed(3)} ms per 50 KB`,
  );
};
console.log(`pages: ${pageCount} of ${averageKb.toFixed(1)} KB on average (${(totalBytes / 1e6).toFixed(2)} MB), best of ${rounds} rounds`);
report('wall time', bestWall);
report('CPU time ', bestCpu);
console.log(`markdown: ${(outputChars / totalBytes).toFixed(2)} characters per storage byte`);
