import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassageRetriever } from '../src/answers/passages.ts';
import { LocalReranker } from '../src/answers/rerank.ts';
import { SectionsRepository } from '../src/answers/sections.repository.ts';
import { sourcesOf } from '../src/answers/types.ts';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { createLogger } from '../src/logger.ts';
import { SearchService } from '../src/search/search.service.ts';

const kinds = await testStoreKinds();

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i} about ${topic} explains one more detail of the ${topic} settings, step ${i}.`).join('\n\n');

describe.each(kinds)('passage retrieval on %s', (kind) => {
  let store: TestDatabase;
  let retriever: PassageRetriever;

  beforeAll(async () => {
    store = await createTestDatabase(kind);
    const logger = createLogger({ level: 'silent' });
    const embedder = new LocalEmbedder();
    const ingestion = new IngestionService(store.database, embedder, logger);
    const docs = [
      { slug: 'menus', title: 'Menus', content: '# Menus\n\n## Define menus\n\nDefine menu entries in the site configuration under the menus key.\n\n## Render menus\n\nRender a menu with the menu template.\n' },
      // The same section in two documents: one of them is a near-duplicate.
      { slug: 'menus-copy', title: 'Menus (old)', content: '# Menus\n\n## Define menus\n\nDefine menu entries in the site configuration under the menus key.\n' },
      { slug: 'huge', title: 'Sitemap', content: `# Sitemap\n\n## Sitemap settings\n\n${filler('sitemap', 120)}\n\nThe sitemap changefreq defaults to weekly.\n\n${filler('sitemap', 120)}\n` },
      ...Array.from({ length: 8 }, (_, i) => ({ slug: `theme-${i}`, title: `Theme ${i}`, content: `# Theme ${i}\n\nTheme ${i} styles menus and menu entries its own way.\n` })),
    ];
    for (const result of await ingestion.ingestMany(docs.map((d) => ({ namespace: 'user_docs' as const, ...d })))) if (result instanceof Error) throw result;
    retriever = new PassageRetriever({
      search: new SearchService(store.database, embedder, logger),
      sections: new SectionsRepository(store.database.db),
      reranker: new LocalReranker(),
      logger,
      contextTokens: 3_000,
    });
  }, 60_000);
  afterAll(() => store?.drop());

  it.each(['standard', 'smart'] as const)('widens hits to their sections, drops near-duplicates, bounds documents (%s)', async (mode) => {
    const { passages } = await retriever.retrieve({ message: 'How do I define menu entries in the configuration?', mode, maxDocuments: 3 });
    expect(passages[0]).toMatchObject({ title: expect.stringMatching(/^Menus/), headingPath: 'Menus > Define menus' });
    expect(passages[0]!.content).toMatch(/^## Define menus\n\nDefine menu entries/);
    const defines = passages.filter((p) => p.content.includes('Define menu entries in the site configuration'));
    expect(defines).toHaveLength(1);
    expect(sourcesOf(passages).length).toBeLessThanOrEqual(3);
    expect(passages.reduce((sum, p) => sum + p.tokens, 0)).toBeLessThanOrEqual(3_000);
  });

  it('gives the hit chunks of a section too large for the budget', async () => {
    const { passages } = await retriever.retrieve({ message: 'What does sitemap changefreq default to?', budgetTokens: 800 });
    const sitemap = passages.find((p) => p.title === 'Sitemap')!;
    expect(sitemap.content).toContain('changefreq defaults to weekly');
    expect(sitemap.tokens).toBeLessThanOrEqual(800);
    expect(passages.reduce((sum, p) => sum + p.tokens, 0)).toBeLessThanOrEqual(800);
  });

  it('searches only the namespaces asked', async () => {
    expect((await retriever.retrieve({ message: 'menus', namespaces: ['wiki'] })).passages).toEqual([]);
  });
});
