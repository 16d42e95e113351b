/**
 * Hybrid rescoring in the statement against rescoring in the service, on one store (the Hugo
 * pages): the same 48 questions, the same candidates, ranked either by the statement from the
 * chunks' stored terms (`rescore`) or by hybridRank from the candidates' texts. Prints wall and
 * process CPU time a query (the embedded store runs inside the process, so its CPU counts too).
 *
 *   pnpm --filter @kb/core exec tsx bench/hybrid-rescoring.bench.ts [--store=pglite|postgres] [--corpus=DIR] [--rounds=3]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { createTestDatabase } from '@kb/db/testing';
import questions from '../../../apps/server/bench/hugo-questions.json' with { type: 'json' };
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { createLogger } from '../src/logger.ts';
import {
  CandidateAnalysisCache,
  HYBRID_DEFAULTS,
  hybridQueryTerms,
  hybridQueryTokens,
  lexicalQueryText,
} from '../src/search/hybrid.ts';
import { SearchRepository } from '../src/search/search.repository.ts';
import { rankCandidates } from '../src/search/search.service.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'pglite' },
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/markdown-docs/hugo-docs') },
    rounds: { type: 'string', default: '3' },
  },
});
const kind = values.store === 'postgres' ? 'postgres' : 'pglite';
const files: string[] = [];
const walk = (dir: string): void => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (path.endsWith('.md')) files.push(path);
  }
};
walk(values.corpus);

const store = await createTestDatabase(kind);
try {
  const logger = createLogger({ level: 'silent' });
  const embedder = new LocalEmbedder();
  const docs = files.map((f) => ({ namespace: 'user_docs' as const, slug: relative(values.corpus, f), title: relative(values.corpus, f), content: readFileSync(f, 'utf8') }));
  await new IngestionService(store.database, embedder, logger).ingestMany(docs);
  const repository = new SearchRepository(store.database);
  const cache = new CandidateAnalysisCache();
  const limit = 15;

  const search = async (text: string, inStatement: boolean): Promise<void> => {
    const query = lexicalQueryText(text);
    const [vector] = await embedder.embed([text], 'query');
    const input = { query, words: hybridQueryTokens(query), vector: vector!, namespaces: null, depth: HYBRID_DEFAULTS.depth, feedbackDocs: 3, feedbackBeta: 1 };
    if (inStatement) {
      const rescore = { terms: hybridQueryTerms(query), k1: HYBRID_DEFAULTS.k1, b: HYBRID_DEFAULTS.b, weights: HYBRID_DEFAULTS.weights, limit, requireTerm: true };
      await repository.hybridCandidates({ ...input, rescore });
      return;
    }
    const found = await repository.hybridCandidates(input);
    rankCandidates(query, found, await repository.corpusStats(), { limit, cache, requireTerm: true });
  };

  const texts = questions.map((q) => q.question);
  console.log(`${kind}: ${docs.length} pages, ${(await repository.corpusStats()).n} chunks, ${texts.length} questions a round`);
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const inStatement of [false, true]) {
      const started = performance.now();
      const cpu = process.cpuUsage();
      for (const text of texts) await search(text, inStatement);
      const used = process.cpuUsage(cpu);
      const wall = (performance.now() - started) / texts.length;
      console.log(`  round ${round + 1}, rescored ${inStatement ? 'in the statement' : 'in the service  '}: ${wall.toFixed(2)} ms wall, ${((used.user + used.system) / 1000 / texts.length).toFixed(2)} ms CPU a query`);
    }
  }
} finally {
  await store.drop();
}
