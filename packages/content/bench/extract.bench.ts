/**
 * Main-content extraction, measured: the hand-written extractor (`htmlToMarkdown`, html/extract.ts)
 * against Mozilla's Readability (over linkedom, its article then converted by the same
 * converter), on
 *   - Readability's own 60 test pages with their expected article (`html-pages/readability`), and
 *   - documentation pages: Hugo documentation pages rendered into the chrome of five documentation
 *     generators (doc-pages.ts), the expected text being the article alone.
 *
 *   cd packages/content && pnpm exec tsx bench/extract.bench.ts [--corpus=DIR] [--details]
 *
 * DIR is the shared test corpus (default: ../shared/corpus beside the repository); without it the
 * benchmark says so and stops. Scores are token-level precision, recall and F1 of the extracted
 * text against the expected text (bags of words; CJK characters one token each), averaged over
 * pages; on documentation pages also the share of headings, code blocks and table rows kept and
 * the pages where page chrome leaked in. Time is a ratio to the hand-written extractor's, in the
 * same run.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { htmlToMarkdown, htmlToMarkdownWithoutReadability } from '../src/html/html-to-markdown.ts';
import { resolveSiteDirectives } from '../src/directives/index.ts';
import { docPage, renderMarkdown, THEMES } from './doc-pages.ts';

const { values } = parseArgs({
  options: { corpus: { type: 'string' }, details: { type: 'boolean', default: false }, set: { type: 'string' } },
});
const corpus = resolve(values.corpus ?? join(import.meta.dirname, '../../../../shared/corpus'));
const pagesDir = join(corpus, 'html-pages/readability');
const hugoDir = join(corpus, 'markdown-docs/hugo-docs/content/en');
if (!existsSync(pagesDir) || !existsSync(hugoDir)) {
  console.log(`extract.bench: no corpus at ${corpus} (give --corpus=DIR): skipped`);
  process.exit(0);
}

interface Case {
  set: 'readability' | 'docs';
  name: string;
  html: string;
  expected: string;
}

const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu;

function bag(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [token] of text.toLowerCase().matchAll(TOKEN)) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

function score(got: string, expected: string): { p: number; r: number; f1: number } {
  const a = bag(got);
  const b = bag(expected);
  let common = 0;
  let sizeA = 0;
  let sizeB = 0;
  for (const n of a.values()) sizeA += n;
  for (const [token, n] of b) {
    sizeB += n;
    common += Math.min(n, a.get(token) ?? 0);
  }
  const p = sizeA === 0 ? 0 : common / sizeA;
  const r = sizeB === 0 ? 1 : common / sizeB;
  return { p, r, f1: p + r === 0 ? 0 : (2 * p * r) / (p + r) };
}

/** Headings, code blocks and table rows of a Markdown text. */
function structure(markdown: string): { headings: number; code: number; rows: number } {
  return {
    headings: (markdown.match(/^#{2,6} /gm) ?? []).length,
    code: (markdown.match(/^(`{3,}|~{3,})\S*$/gm) ?? []).length / 2,
    rows: (markdown.match(/^\|.*\|$/gm) ?? []).length,
  };
}

/** Phrases of page chrome (doc-pages.ts) that must not reach the extracted text. */
const CHROME = ['We use cookies', 'Edit this page', 'Was this page helpful', 'Skip to', 'Copyright ©', 'page 3', 'Last updated', 'Copy'];

const cases: Case[] = [];
const readabilityPages = values.set === 'docs' ? [] : (await readdir(pagesDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
for (const name of readabilityPages) {
  const html = await readFile(join(pagesDir, name, 'source.html'), 'utf8');
  // Expected articles are converted whole (no extraction), by the same converter.
  const expected = htmlToMarkdownWithoutReadability(await readFile(join(pagesDir, name, 'expected.html'), 'utf8')).markdown;
  cases.push({ set: 'readability', name, html, expected });
}

// Documentation pages: the Hugo pages with code blocks and (where there are) tables, every n-th.
const hugoFiles = (await readdir(hugoDir, { recursive: true, withFileTypes: true }))
  .filter((e) => e.isFile() && extname(e.name) === '.md' && !e.parentPath.includes('_common'))
  .map((e) => join(e.parentPath, e.name))
  .sort();
const chosen: Array<{ title: string; markdown: string; file: string }> = [];
for (const file of hugoFiles) {
  const text = await readFile(file, 'utf8');
  const body = resolveSiteDirectives(text, { path: file }).text.replace(/^---\n[\s\S]*?\n---\n/, '');
  if (!/^```/m.test(body) || !/^## /m.test(body) || body.length < 2_000) continue;
  const title = /^title:\s*['"]?(.+?)['"]?\s*$/m.exec(text)?.[1] ?? file;
  chosen.push({ title, markdown: body, file });
}
const withTables = chosen.filter((c) => /^\|.*\|\s*$/m.test(c.markdown));
const docSources = values.set === 'readability' ? [] : [...withTables.slice(0, 6), ...chosen.filter((c) => !withTables.includes(c)).filter((_, n) => n % 25 === 0).slice(0, 6)];
for (const source of docSources) {
  const article = renderMarkdown(source.markdown);
  for (const theme of THEMES) {
    const page = docPage(theme, source.title, article);
    cases.push({ set: 'docs', name: `${theme}:${source.file.slice(hugoDir.length + 1)}`, html: page.html, expected: htmlToMarkdownWithoutReadability(page.expectedHtml).markdown });
  }
}

/**
 * hand: landmark else body (the extractor alone); readability: Readability's article, converted
 * by the same converter; shipped: what htmlToMarkdown does (landmark, else Readability, else body).
 */
type Method = 'hand' | 'readability' | 'shipped';
const METHODS: Method[] = ['hand', 'readability', 'shipped'];

function readability(html: string): string {
  const { document } = parseHTML(html);
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { keepClasses: true }).parse();
  return article?.content ? htmlToMarkdownWithoutReadability(article.content).markdown : '';
}

const time: Record<Method, number> = { hand: 0, readability: 0, shipped: 0 };
const results: Record<Method, Array<{ c: Case; got: string }>> = { hand: [], readability: [], shipped: [] };
const run: Record<Method, (html: string) => string> = {
  hand: (html) => htmlToMarkdownWithoutReadability(html).markdown,
  readability,
  shipped: (html) => htmlToMarkdown(html).markdown,
};
for (const c of cases) {
  for (const method of METHODS) {
    const t = performance.now();
    const got = run[method](c.html);
    time[method] += performance.now() - t;
    results[method].push({ c, got });
  }
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const f = (x: number): string => x.toFixed(3);
console.log(`extraction: ${cases.filter((c) => c.set === 'readability').length} Readability test pages, ${cases.filter((c) => c.set === 'docs').length} documentation pages (${docSources.length} Hugo pages x ${THEMES.length} generators)`);
console.log('set          method                      precision recall  F1      F1<0.8  headings code   rows   chrome');
for (const set of ['readability', 'docs'] as const) {
  for (const method of METHODS) {
    const rows = results[method].filter((x) => x.c.set === set);
    const scores = rows.map((x) => score(x.got, x.c.expected));
    let kept = { headings: 0, code: 0, rows: 0 };
    let wanted = { headings: 0, code: 0, rows: 0 };
    let chrome = 0;
    for (const x of rows) {
      const got = structure(x.got);
      const exp = structure(x.c.expected);
      kept = { headings: kept.headings + Math.min(got.headings, exp.headings), code: kept.code + Math.min(got.code, exp.code), rows: kept.rows + Math.min(got.rows, exp.rows) };
      wanted = { headings: wanted.headings + exp.headings, code: wanted.code + exp.code, rows: wanted.rows + exp.rows };
      if (set === 'docs' && CHROME.some((phrase) => x.got.includes(phrase) && !x.c.expected.includes(phrase))) chrome++;
    }
    const share = (k: number, w: number): string => (w === 0 ? '  -  ' : f(k / w));
    console.log(
      `${set.padEnd(12)} ${method.padEnd(27)} ${f(mean(scores.map((s) => s.p)))}     ${f(mean(scores.map((s) => s.r)))}   ${f(mean(scores.map((s) => s.f1)))}   ${String(scores.filter((s) => s.f1 < 0.8).length).padStart(3)}     ` +
        `${share(kept.headings, wanted.headings)}    ${share(kept.code, wanted.code)}  ${share(kept.rows, wanted.rows)}  ${set === 'docs' ? `${chrome}/${rows.length}` : '-'}`,
    );
    if (values.details) {
      rows.forEach((x, n) => {
        const s = scores[n]!;
        const leaked = CHROME.filter((phrase) => x.got.includes(phrase) && !x.c.expected.includes(phrase));
        if (s.f1 < 0.9 || leaked.length > 0) console.log(`    ${x.c.name}: P ${f(s.p)} R ${f(s.r)} F1 ${f(s.f1)}${leaked.length > 0 ? ` chrome: ${leaked.join(', ')}` : ''}`);
      });
    }
  }
}
console.log(
  `time, as a ratio to the extractor alone (${(time.hand / cases.length).toFixed(1)} ms a page in this run): Readability ${(time.readability / time.hand).toFixed(2)}x, shipped ${(time.shipped / time.hand).toFixed(2)}x`,
);
