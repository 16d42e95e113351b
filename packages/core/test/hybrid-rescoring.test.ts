import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { createLogger } from '../src/logger.ts';
import { chunkSearchText, HYBRID_DEFAULTS, hybridQueryTerms, hybridQueryTokens, lexicalQueryText, storedLexicalTerms } from '../src/search/hybrid.ts';
import { LexicalTermsBackfill } from '../src/search/lexical-terms.backfill.ts';
import { SearchRepository } from '../src/search/search.repository.ts';
import { rankCandidates, SearchService } from '../src/search/search.service.ts';

const kinds = await testStoreKinds();

const QUERIES = [
  'IL6 levels in serum',
  'How do I define menu entries in the site configuration?',
  'the cache of the build server',
  'vitamin D and bone density in older adults',
  'menus menus menu',
  'IL-6 receptor antibody trial',
];

const topics = ['menu', 'cache', 'serum', 'bone', 'build', 'receptor'];
const documents = [
  { slug: 'menus', title: 'Menus', content: '# Menus\n\n## Define menus\n\nDefine menu entries in the site configuration under the menus key.\n\n## Render menus\n\nRender a menu with the menu template.\n' },
  { slug: 'menus-copy', title: 'Menus (old)', content: '# Menus\n\n## Define menus\n\nDefine menu entries in the site configuration under the menus key.\n' },
  { slug: 'il6', title: 'Interleukin 6', content: '# Interleukin 6\n\n## Levels\n\nSerum IL-6 levels rise after exercise; IL6 and its receptor are measured by assay.\n\n## Trials\n\nAn antibody against the IL-6 receptor was tested in a trial of 200 adults.\n' },
  { slug: 'vitamin', title: 'Vitamin D', content: '# Vitamin D\n\nVitamin D intake and bone density: older adults with low serum vitamin D lose bone faster.\n\n## Dosing\n\nDaily doses of 800 IU are common.\n' },
  { slug: 'cache', title: 'Build cache', content: '# Build cache\n\nThe build server keeps a cache of modules; clear the cache when the build fails.\n\n## Cache keys\n\nKeys hash the configuration and the sources.\n' },
  ...Array.from({ length: 24 }, (_, i) => ({
    slug: `note-${i}`,
    title: `Note ${i}`,
    content: `# Note ${i}\n\n## Part one\n\nNote ${i} mentions ${topics[i % 6]} and ${topics[(i + 2) % 6]} in passing, ${'with some filler words '.repeat(i % 5)}.\n\n## Part two\n\nMore about ${topics[(i + 3) % 6]} settings, ${topics[i % 6]} ${topics[i % 6]}.\n`,
  })),
];

describe.each(kinds)('hybrid rescoring in the statement on %s', (kind) => {
  let store: TestDatabase;
  let repository: SearchRepository;
  const embedder = new LocalEmbedder();
  const logger = createLogger({ level: 'silent' });

  beforeAll(async () => {
    store = await createTestDatabase(kind);
    const ingestion = new IngestionService(store.database, embedder, logger);
    for (const result of await ingestion.ingestMany(documents.map((d) => ({ namespace: 'user_docs' as const, ...d })))) if (result instanceof Error) throw result;
    repository = new SearchRepository(store.database);
  }, 60_000);
  afterAll(() => store?.drop());

  it('stores each chunk the terms hybridRank analyses from its text', async () => {
    const rows = (await sql<{ headingPath: string; content: string; terms: string }>`
      select heading_path as "headingPath", content, lexical_terms::text as terms from chunks`.execute(store.database.db)).rows;
    expect(rows.length).toBeGreaterThan(documents.length);
    for (const row of rows) expect(JSON.parse(row.terms)).toEqual(JSON.parse(storedLexicalTerms(chunkSearchText(row.headingPath, row.content))));
  });

  it.each([false, true])('ranks as hybridRank does over the same candidates (requireTerm %s)', async (requireTerm) => {
    for (const text of QUERIES) {
      const query = lexicalQueryText(text);
      const [vector] = await embedder.embed([text], 'query');
      const input = { query, words: hybridQueryTokens(query), vector: vector!, namespaces: null, depth: 40, feedbackDocs: 3, feedbackBeta: 1 };
      const candidates = await repository.hybridCandidates(input);
      expect(candidates.ranked).toBeUndefined();
      const { ranked: expected, byId, similarity } = rankCandidates(query, candidates, await repository.corpusStats(), { requireTerm });
      expect(expected.length).toBeGreaterThan(3);

      const rescore = { terms: hybridQueryTerms(query), k1: HYBRID_DEFAULTS.k1, b: HYBRID_DEFAULTS.b, weights: HYBRID_DEFAULTS.weights, limit: 1000, requireTerm };
      const { ranked } = await repository.hybridCandidates({ ...input, rescore });
      expect(ranked, text).toBeDefined();
      expect(ranked!.hits.map((h) => h.chunkId), text).toEqual(expected.map((h) => h.id));
      ranked!.hits.forEach((h, i) => expect(h.score, `${text}: ${i}`).toBeCloseTo(expected[i]!.score, 12));
      expect(ranked!.bestSimilarity).toBe(Math.max(...similarity.values()));
      // The texts come with the results: a hit is whole.
      expect(ranked!.hits[0]).toEqual({ ...byId.get(ranked!.hits[0]!.chunkId)!, raw: undefined, tokenCount: undefined, score: ranked!.hits[0]!.score });
      expect(Object.keys(ranked!.hits[0]!)).not.toContain('tokenCount');
    }
  });

  it('ranks chunks without stored terms from their texts alike, and the backfill stores them', async () => {
    const search = new SearchService(store.database, embedder, logger);
    const results = async () => Promise.all(QUERIES.map((query) => search.searchScored({ query, topK: 5, mode: 'hybrid' })));
    const before = await results();
    const stored = (await sql<{ id: string; terms: string }>`select id, lexical_terms::text as terms from chunks order by id`.execute(store.database.db)).rows;
    // Some chunks as written before the column: half of them.
    await sql`update chunks set lexical_terms = null where id = any(${stored.filter((_, i) => i % 2 === 0).map((r) => r.id)}::uuid[])`.execute(store.database.db);
    const fallback = await results();
    fallback.forEach((r, i) => {
      expect(r.results.map((h) => h.chunkId)).toEqual(before[i]!.results.map((h) => h.chunkId));
      r.results.forEach((h, j) => expect(h.score).toBeCloseTo(before[i]!.results[j]!.score, 12));
      expect(r.bestSimilarity).toBe(before[i]!.bestSimilarity);
    });

    const backfill = new LexicalTermsBackfill(store.database);
    expect(await backfill.run({ batch: 7 })).toBe(Math.ceil(stored.length / 2));
    expect(await backfill.run()).toBe(0);
    const after = (await sql<{ id: string; terms: string }>`select id, lexical_terms::text as terms from chunks order by id`.execute(store.database.db)).rows;
    expect(after).toEqual(stored);
    expect(await results()).toEqual(before);
  });
});
