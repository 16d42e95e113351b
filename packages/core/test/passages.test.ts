import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PassageRetriever } from '../src/answers/passages.ts';
import { LocalReranker } from '../src/answers/rerank.ts';
import { SectionsRepository } from '../src/answers/sections.repository.ts';
import { sourcesOf } from '../src/answers/types.ts';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { createLogger } from '../src/logger.ts';
import { NAMESPACES } from '../src/namespaces.ts';
import { SearchRepository } from '../src/search/search.repository.ts';
import { SearchService } from '../src/search/search.service.ts';

const kinds = await testStoreKinds();

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i} about ${topic} explains one more detail of the ${topic} settings, step ${i}.`).join('\n\n');

describe.each(kinds)('passage retrieval on %s', (kind) => {
  let store: TestDatabase;
  let retriever: PassageRetriever;
  let search: SearchService;

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
      // Two pages whose text is almost the same (a shared fragment, copied with a change).
      { slug: 'zephyr-a', title: 'Zephyr gadget', content: '# Zephyr gadget\n\nInstall the zephyr gadget with the gadget installer, then restart the zephyr daemon so that it loads the gadget. The installer asks for the daemon port and writes it to the zephyr configuration file, which the daemon reads at start.\n' },
      { slug: 'zephyr-b', title: 'Zephyr gadget (mirror)', content: '# Zephyr gadget\n\nInstall the zephyr gadget with the gadget installer, then restart the zephyr daemon so that it loads the gadget. The installer asks for the daemon port and writes it to the zephyr configuration file, which the daemon reads at start. Mirrored.\n' },
      ...Array.from({ length: 5 }, (_, i) => ({ slug: `palette-${i}`, title: `Palette ${i}`, content: `# Palette ${i}\n\nPalette tokens set button colours in scheme ${i}.\n` })),
      {
        slug: 'palette-guide',
        title: 'Styling guide',
        content: `# Styling guide\n\n## Everything about styles\n\n${Array.from({ length: 160 }, (_, i) => `Note ${i} on button colours and the palette, with words about grids, margins and padding.`).join('\n\n')}\n`,
      },
    ];
    for (const result of await ingestion.ingestMany(docs.map((d) => ({ namespace: 'user_docs' as const, ...d })))) if (result instanceof Error) throw result;
    search = new SearchService(store.database, embedder, logger);
    retriever = new PassageRetriever({
      search,
      sections: new SectionsRepository(store.database.db),
      reranker: new LocalReranker(),
      logger,
      contextTokens: 3_000,
    });
  }, 60_000);
  afterAll(() => store?.drop());

  it.each(['standard', 'smart'] as const)('widens hits to their sections, drops near-duplicates, bounds documents (%s)', async (mode) => {
    const { passages, wordFrequencies } = await retriever.retrieve({ message: 'How do I define menu entries in the configuration?', mode, maxDocuments: 3 });
    expect(wordFrequencies!.frequencies.get('menu')).toBeGreaterThan(0);
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

  it('keeps the documents search ranks first: a long first section does not crowd out the next pages', async () => {
    const question = 'sitemap settings and theme menus';
    const { results } = await search.searchScored({ query: question, topK: 20, mode: 'hybrid' });
    const firstDocuments = [...new Set(results.map((r) => r.documentId))].slice(0, 5);
    const { passages, wordFrequencies } = await retriever.retrieve({ message: question, budgetTokens: 1_500 });
    const documents = new Set(passages.map((p) => p.documentId));
    // Search's best document, and as many documents as it ranked (near-duplicates replaced by the next).
    expect(documents).toContain(firstDocuments[0]);
    expect(documents.size).toBe(firstDocuments.length);
    expect(passages.reduce((sum, p) => sum + p.tokens, 0)).toBeLessThanOrEqual(1_500);
    // The knowledge base's frequencies of the message's words come with the passages.
    expect(wordFrequencies!.frequencies.get('sitemap')).toBeGreaterThan(0);
    expect(wordFrequencies!.frequencies.get('theme')).toBeGreaterThan(0);
  });

  it('gives a passage to each of the first five documents of the search, even where one section holds many weaker hits', async () => {
    const question = 'palette tokens for button colours';
    const { results } = await search.searchScored({ query: question, topK: 20, mode: 'hybrid' });
    const firstDocuments = [...new Set(results.map((r) => r.documentId))].slice(0, 5);
    // The long guide's one section gathers many hits: grouped, it ranks above pages search put before it.
    expect(results.filter((r) => r.slug === 'palette-guide').length).toBeGreaterThan(5);
    expect(firstDocuments).not.toContain(results.find((r) => r.slug === 'palette-guide')!.documentId);
    const { passages } = await retriever.retrieve({ message: question });
    const documents = new Set(passages.map((p) => p.documentId));
    for (const id of firstDocuments) expect(documents).toContain(id);
  });

  it("keeps a page search ranks first as a source when its text nearly repeats another page's", async () => {
    const found = (await search.search({ query: 'install the zephyr gadget', topK: 5, mode: 'hybrid' })).map((r) => r.slug);
    expect(found.slice(0, 2).sort()).toEqual(['zephyr-a', 'zephyr-b']);
    const { passages } = await retriever.retrieve({ message: 'install the zephyr gadget' });
    expect(sourcesOf(passages).map((s) => s.slug)).toEqual(expect.arrayContaining(['zephyr-a', 'zephyr-b']));
  });

  it('finds nothing for a query no chunk shares a word with, in both search modes', async () => {
    for (const mode of ['hybrid', 'semantic'] as const) {
      expect((await search.searchScored({ query: 'zzzxqv', topK: 5, mode })).results).toEqual([]);
      const { results } = await search.searchScored({ query: 'sitemap zzzxqv', topK: 5, mode });
      expect(results.length).toBeGreaterThan(0);
      expect(results.every((r) => /sitemap/i.test(`${r.headingPath} ${r.content}`))).toBe(true);
    }
    expect((await search.searchScored({ query: 'zzzxqv', topK: 5 })).bestSimilarity).toBeNull();
    expect((await retriever.retrieve({ message: 'zzzxqv' })).passages).toEqual([]);
  });

  it('searches in hybrid mode by default with the built-in embedder', () => {
    expect(search.defaultMode).toBe('hybrid');
  });

  it('retrieves a new question in a conversation as itself, and completes a follow-up', async () => {
    const history = [
      { role: 'user' as const, content: 'How do I define menu entries in the configuration?' },
      { role: 'assistant' as const, content: 'Define menu entries under the menus key.' },
    ];
    const fresh = await retriever.retrieve({ message: 'What does sitemap changefreq default to?', history });
    expect(fresh.query).toBe('What does sitemap changefreq default to?');
    expect(fresh.passages[0]!.title).toBe('Sitemap');
    const followUp = await retriever.retrieve({ message: 'and how do I render them?', history });
    expect(followUp.query).toMatch(/^and how do I render them\? .*menu/);
    expect(followUp.passages.map((p) => p.headingPath)).toContain('Menus > Render menus');
  });

  it('searches only the namespaces asked', async () => {
    expect((await retriever.retrieve({ message: 'menus', namespaces: ['wiki'] })).passages).toEqual([]);
  });

  it('searches with no filter when every namespace is asked, as a search that names none does', async () => {
    const candidates = vi.spyOn(SearchRepository.prototype, 'hybridCandidates');
    const nearest = vi.spyOn(SearchRepository.prototype, 'nearest');
    try {
      for (const scope of [null, [...NAMESPACES]]) {
        await retriever.retrieve({ message: 'menus', namespaces: [...NAMESPACES].reverse() });
        await search.searchScored({ query: 'menus', namespaces: [...NAMESPACES], scope, topK: 5, mode: 'semantic' });
      }
      expect(candidates.mock.calls.map((call) => call[0].namespaces)).toEqual([null, null]);
      expect(nearest.mock.calls.map((call) => call[1])).toEqual([null, null]);
    } finally {
      candidates.mockRestore();
      nearest.mockRestore();
    }
  });
});
