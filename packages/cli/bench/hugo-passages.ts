/**
 * Passage ranking on the Hugo documentation: for each of the chat benchmark's 48 questions
 * (apps/server/bench/hugo-questions.json: question, answering page, answering sentence), whether
 * a result among the top 1, 3 and 5 of semantic and hybrid search holds the answering sentence.
 * Built-in embedder, a temporary in-memory store:
 *
 *   pnpm --filter @kb/cli exec tsx bench/hugo-passages.ts /work/shared/corpus/markdown-docs/hugo-docs
 */
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { loadConfig } from '@kb/config';
import { CHUNKER_VERSION } from '@kb/content';
import { createLogger, IngestionService, openStore, SearchService } from '@kb/core';
import { documentFor, includedFiles } from '../src/commands/ingest-folder.ts';

const source = process.argv[2];
if (!source) {
  console.error('usage: tsx bench/hugo-passages.ts <hugo-docs-dir>');
  process.exit(2);
}
const questions = JSON.parse(await readFile(join(import.meta.dirname, '../../../apps/server/bench/hugo-questions.json'), 'utf8')) as Array<{
  question: string;
  slug: string;
  answer: string;
}>;
const entries = await readdir(source, { recursive: true, withFileTypes: true });
const files = entries
  .filter((e) => e.isFile() && ['.md', '.markdown'].includes(extname(e.name).toLowerCase()))
  .map((e) => join(e.parentPath, e.name))
  .sort();

const logger = createLogger({ level: 'warn' });
const store = await openStore(loadConfig({}), { logger, inMemory: true, checkEmbedding: false });
const ingestion = new IngestionService(store.database, store.embedder, logger, { serving: false });
const search = new SearchService(store.database, store.embedder, logger);
const fragments = await includedFiles(source, files);
const docs = await Promise.all(files.map(async (file) => documentFor(source, file, await readFile(file, 'utf8'), { fragments })));
let chunks = 0;
for (let i = 0; i < docs.length; i += 64) {
  for (const result of await ingestion.ingestMany(docs.slice(i, i + 64))) {
    if (result instanceof Error) throw result;
    chunks += result.chunks;
  }
}
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
console.log(`${CHUNKER_VERSION}: ${docs.length} documents, ${chunks} chunks, ${questions.length} questions`);
for (const mode of ['semantic', 'hybrid'] as const) {
  const found = { 1: 0, 3: 0, 5: 0 };
  for (const q of questions) {
    const results = await search.search({ query: q.question, topK: 5, mode });
    const rank = results.findIndex((r) => squash(r.content).includes(squash(q.answer)));
    for (const k of [1, 3, 5] as const) if (rank >= 0 && rank < k) found[k]++;
  }
  console.log(`${mode.padEnd(9)} answering passage in top 1: ${found[1]}, top 3: ${found[3]}, top 5: ${found[5]}`);
}
await store.close();
