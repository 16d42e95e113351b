/**
 * The server's share of ingesting Markdown, alone: splitting (`splitDocument`) and the built-in
 * embedder's vectors (`LexicalVectorizer`) of every page of a Markdown corpus (the Hugo
 * documentation by default), in CPU time a chunk, after a warm-up pass. It also writes every
 * chunk row the split makes (parents and children, in order, as JSON lines) and prints their
 * SHA-256 and that of the children's vectors, so two versions of the splitter and the embedder
 * can be shown to store the same rows:
 *
 *   cd packages/content && node --max-semi-space-size=32 --import tsx bench/split-embed.bench.ts
 *     [--corpus=DIR] [--passes=5] [--rows=FILE] [--compare=FILE]
 *
 * (the server's young generation, as its start script sets it: the default one spends a fifth
 * more on garbage collection here).
 *
 * --rows writes the rows; --compare reads rows written before and names the first that differs
 * (the process exits 1 if any does). A CPU profile: `node --cpu-prof --import tsx bench/...`.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { findFrontMatter, parseFrontMatter } from '../src/chunking/front-matter.ts';
import { LexicalVectorizer } from '../src/lexical/vectorize.ts';
import { embeddingText, splitDocument, type SplitDocument } from '../src/prepare.ts';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/markdown-docs/hugo-docs') },
    passes: { type: 'string', default: '5' },
    rows: { type: 'string' },
    compare: { type: 'string' },
  },
});

interface Page {
  slug: string;
  title: string;
  content: string;
}

async function loadPages(dir: string): Promise<Page[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  return Promise.all(
    files.map(async (file) => {
      const content = await readFile(file, 'utf8');
      const title = parseFrontMatter(findFrontMatter(content))['title'];
      const slug = relative(dir, file);
      return { slug, title: typeof title === 'string' && title.trim() ? title.trim() : slug, content };
    }),
  );
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const pages = await loadPages(values.corpus);
const vectorizer = new LexicalVectorizer({ dimension: 1024 });

// The rows, and a warm-up pass (compiles the hot paths; fills the per-process caches).
const lines: string[] = [];
const vectorHash = createHash('sha256');
let chunks = 0;
for (const page of pages) {
  const split: SplitDocument = splitDocument({ title: page.title, content: page.content });
  lines.push(JSON.stringify({ slug: page.slug, metadata: split.metadata }));
  for (const parent of split.parents) lines.push(JSON.stringify({ slug: page.slug, parent }));
  for (const child of split.children) {
    lines.push(JSON.stringify({ slug: page.slug, child }));
    const vector = vectorizer.vector(embeddingText(child.headingPath, child.content));
    vectorHash.update(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
  }
  chunks += split.children.length;
}
const digest = createHash('sha256').update(lines.join('\n')).digest('hex');
if (values.rows) writeFileSync(values.rows, `${lines.join('\n')}\n`);
let differs = false;
if (values.compare) {
  const before = readFileSync(values.compare, 'utf8').split('\n');
  if (before[before.length - 1] === '') before.pop();
  const first = lines.findIndex((line, i) => line !== before[i]);
  if (first >= 0 || before.length !== lines.length) {
    differs = true;
    const at = first >= 0 ? first : Math.min(lines.length, before.length);
    console.log(`rows differ from ${values.compare} at row ${at + 1} (${lines.length} rows now, ${before.length} before)`);
    console.log(`  before: ${before[at]?.slice(0, 300)}`);
    console.log(`  now:    ${lines[at]?.slice(0, 300)}`);
  } else {
    console.log(`rows identical to ${values.compare} (${lines.length} rows)`);
  }
}

const passes = Number(values.passes);
let splitMs = 0;
let embedMs = 0;
for (let pass = 0; pass < passes; pass++) {
  for (const page of pages) {
    const started = cpuMs();
    const split = splitDocument({ title: page.title, content: page.content });
    const split_ = cpuMs();
    for (const child of split.children) vectorizer.vector(embeddingText(child.headingPath, child.content));
    splitMs += split_ - started;
    embedMs += cpuMs() - split_;
  }
}
const perChunk = (ms: number): string => (ms / (chunks * passes)).toFixed(3);
console.log(`${pages.length} pages, ${chunks} child chunks, ${lines.length} rows, sha256 ${digest}; vectors sha256 ${vectorHash.digest('hex')}`);
console.log(
  `CPU a chunk over ${passes} passes: split ${perChunk(splitMs)} ms, embed ${perChunk(embedMs)} ms, both ${perChunk(splitMs + embedMs)} ms`,
);
if (differs) process.exitCode = 1;
