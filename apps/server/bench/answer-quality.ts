/**
 * Answer quality on the Hugo documentation: questions written for this benchmark
 * (hugo-questions.json: the question, the page that answers it, and the sentence that answers it).
 *
 * - retrieval: how often the sources (the distinct documents of the passages given to the
 *   answerer, at most 5) include the answering page, and the reciprocal rank of that page among
 *   them (first, top 3, MRR), for standard and smart retrieval, against a plain BM25 top 5 of whole pages (k1 0.9,
 *   b 0.4, Porter stemming, Lucene's English stop words) over the same documents;
 * - the built-in extractive answer: how often it contains the answering sentence (compared
 *   without Markdown, case or spacing), and how often its sources name the answering page.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { findFrontMatter, parseFrontMatter } from '@kb/content';
import { extractAnswer, sourcesOf, type PassageRetriever, type RetrievalMode } from '@kb/core';
import { Bm25Index } from '@kb/cli/eval';

export interface Question {
  question: string;
  slug: string;
  answer: string;
}

export interface CorpusDocument {
  namespace: 'user_docs';
  slug: string;
  title: string;
  content: string;
}

/** Every Markdown page of the corpus (its license left out), slug = path in the corpus. */
export async function loadCorpus(dir: string): Promise<CorpusDocument[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith('.md') && !(e.name === 'LICENSE.md' && e.parentPath.endsWith('content')))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  return Promise.all(
    files.map(async (file) => {
      const content = await readFile(file, 'utf8');
      const title = parseFrontMatter(findFrontMatter(content))['title'];
      const slug = relative(dir, file);
      return { namespace: 'user_docs' as const, slug, title: typeof title === 'string' && title.trim() ? title.trim() : slug, content };
    }),
  );
}

/** Text compared without Markdown links and emphasis, entities, case or spacing. */
export function normaliseText(text: string): string {
  return text
    .replace(/\[([^\]]*)\](\([^)]*\)|\[[^\]]*\])?/g, '$1')
    .replace(/&nbsp;/g, ' ')
    .replace(/[`*_]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

export interface QualityFigures {
  questions: number;
  bm25Top5: number;
  modes: Record<RetrievalMode, { hits: number; top1: number; top3: number; mrr: number; meanSources: number; answerHasSentence: number; answerSourceHits: number; ms: number[] }>;
  failures: Record<RetrievalMode, string[]>;
}

export async function measureQuality(retriever: PassageRetriever, corpus: readonly CorpusDocument[], questions: readonly Question[]): Promise<QualityFigures> {
  const bm25 = Bm25Index.build(corpus.map((d) => ({ id: d.slug, text: `${d.title}\n${d.content}` })));
  let bm25Hits = 0;
  for (const q of questions) if (bm25.search(q.question, 5).some((h) => h.id === q.slug)) bm25Hits++;
  const figures: QualityFigures = {
    questions: questions.length,
    bm25Top5: bm25Hits,
    modes: {
      standard: { hits: 0, top1: 0, top3: 0, mrr: 0, meanSources: 0, answerHasSentence: 0, answerSourceHits: 0, ms: [] },
      smart: { hits: 0, top1: 0, top3: 0, mrr: 0, meanSources: 0, answerHasSentence: 0, answerSourceHits: 0, ms: [] },
    },
    failures: { standard: [], smart: [] },
  };
  for (const mode of ['standard', 'smart'] as const) {
    const m = figures.modes[mode];
    for (const q of questions) {
      const started = performance.now();
      const retrieval = await retriever.retrieve({ message: q.question, mode });
      m.ms.push(performance.now() - started);
      const sources = sourcesOf(retrieval.passages).map((s) => s.slug);
      m.meanSources += sources.length / questions.length;
      const rank = sources.indexOf(q.slug);
      if (rank === 0) m.top1++;
      if (rank >= 0 && rank < 3) m.top3++;
      if (rank >= 0) {
        m.hits++;
        m.mrr += 1 / (rank + 1) / questions.length;
      }
      const answer = extractAnswer({ question: q.question, query: retrieval.query, language: 'en', passages: retrieval.passages });
      const contains = normaliseText(answer.fragments.join('')).includes(normaliseText(q.answer));
      if (contains) m.answerHasSentence++;
      if (sourcesOf(answer.passages).some((s) => s.slug === q.slug)) m.answerSourceHits++;
      if (!contains) figures.failures[mode].push(`${rank >= 0 ? `page at ${rank + 1}` : 'page missed'}: ${q.question}`);
    }
  }
  return figures;
}

export function printQuality(f: QualityFigures): void {
  const pct = (n: number) => `${n}/${f.questions} (${((100 * n) / f.questions).toFixed(0)}%)`;
  console.log(`\nAnswer quality, ${f.questions} questions about the Hugo documentation`);
  console.log(`  BM25 top 5 pages include the answering page:     ${pct(f.bm25Top5)}`);
  for (const mode of ['standard', 'smart'] as const) {
    const m = f.modes[mode];
    console.log(`  ${mode.padEnd(8)} sources include the answering page:   ${pct(m.hits)}  first ${pct(m.top1)}, top 3 ${pct(m.top3)}, MRR ${m.mrr.toFixed(3)}, ${m.meanSources.toFixed(1)} sources on average`);
    console.log(`  ${mode.padEnd(8)} offline answer holds the sentence:    ${pct(m.answerHasSentence)}; its sources name the page: ${pct(m.answerSourceHits)}`);
  }
}
