/**
 * Writes the Hugo documentation and the chat benchmark's 48 questions as a BEIR-format folder, so
 * that `kb eval` measures page ranking on them (the page that answers a question is its one
 * judged document):
 *
 *   pnpm --filter @kb/cli exec tsx bench/hugo-beir.ts /work/shared/corpus/markdown-docs/hugo-docs /tmp/hugo-beir
 *   pnpm kb eval /tmp/hugo-beir
 *
 * Documents are made as `kb ingest-folder` makes them (slug: the path relative to the folder;
 * title: front matter, first heading or file name; site-generator directives resolved unless
 * `--keep-directives` follows the folders).
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { documentFor, includedFiles } from '../src/commands/ingest-folder.ts';

const [source, target, flag] = process.argv.slice(2);
const keepDirectives = flag === '--keep-directives';
if (!source || !target) {
  console.error('usage: tsx bench/hugo-beir.ts <hugo-docs-dir> <output-dir>');
  process.exit(2);
}
const questionsFile = join(import.meta.dirname, '../../../apps/server/bench/hugo-questions.json');
const questions = JSON.parse(await readFile(questionsFile, 'utf8')) as Array<{ question: string; slug: string }>;

const entries = await readdir(source, { recursive: true, withFileTypes: true });
const files = entries
  .filter((e) => e.isFile() && ['.md', '.markdown'].includes(extname(e.name).toLowerCase()))
  .map((e) => join(e.parentPath, e.name))
  .sort();
const fragments = keepDirectives ? new Set<string>() : await includedFiles(source, files);
const corpus: string[] = [];
for (const file of files) {
  const doc = documentFor(source, file, await readFile(file, 'utf8'), { keepDirectives, fragments });
  corpus.push(JSON.stringify({ _id: doc.slug, title: doc.title, text: doc.content }));
}
await mkdir(join(target, 'qrels'), { recursive: true });
await writeFile(join(target, 'corpus.jsonl'), `${corpus.join('\n')}\n`);
await writeFile(join(target, 'queries.jsonl'), `${questions.map((q, i) => JSON.stringify({ _id: `q${i + 1}`, text: q.question })).join('\n')}\n`);
await writeFile(join(target, 'qrels', 'test.tsv'), `query-id\tcorpus-id\tscore\n${questions.map((q, i) => `q${i + 1}\t${q.slug}\t1`).join('\n')}\n`);
console.log(`${files.length} documents, ${questions.length} questions -> ${target}`);
