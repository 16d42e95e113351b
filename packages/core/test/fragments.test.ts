import { markFragment } from '@kb/content';
import { createLogger } from '@kb/core';
import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { DocumentsService } from '../src/documents/documents.service.ts';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { SearchService } from '../src/search/search.service.ts';

const kinds = await testStoreKinds();
const logger = createLogger({ level: 'silent' });

const TABLE = [
  'Content format | Renderer',
  ':-- | :--',
  'AsciiDoc | requires Asciidoctor to render AsciiDoc content',
  'Pandoc | requires the pandoc executable',
  'reStructuredText | requires rst2html',
].join('\n');

describe.each(kinds)('included fragments on %s', (kind) => {
  let testDb: TestDatabase | undefined;
  afterEach(async () => {
    await testDb?.drop();
    testDb = undefined;
  });

  it("stores each chunk's fragment, and searches take a fragment's copies for one passage ranked below a page's own text", async () => {
    testDb = await createTestDatabase(kind);
    const embedder = new LocalEmbedder();
    const ingestion = new IngestionService(testDb.database, embedder, logger);
    const search = new SearchService(testDb.database, embedder, logger);
    const including = (name: string) => ({
      namespace: 'user_docs' as const,
      slug: name,
      title: name,
      content: `# ${name}\n\nThe ${name} page covers other things entirely, such as menus and sections.\n${markFragment(TABLE, '_common/formats.md')}\nMore about ${name}.\n`,
    });
    for (const doc of [
      including('formats'),
      including('front-matter'),
      including('archetypes'),
      {
        namespace: 'user_docs' as const,
        slug: 'markup',
        title: 'Markup',
        content: '# Markup\n\nTo render AsciiDoc content, install Asciidoctor and allow the asciidoctor executable in the security policy.\n',
      },
    ]) {
      await ingestion.ingest(doc);
    }
    const stored = await testDb.database.db.selectFrom('chunks').select(['content', 'fragment']).execute();
    expect(stored.filter((c) => c.fragment === '_common/formats.md')).toHaveLength(3);
    expect(stored.filter((c) => c.fragment === null).every((c) => !c.content.includes('rst2html'))).toBe(true);
    expect(stored.every((c) => !c.content.includes('kb:fragment'))).toBe(true);
    // The stored Markdown keeps the markers (a reindex splits it again); a document as shown does not.
    const formats = await testDb.database.db.selectFrom('documents').select(['id', 'content']).where('slug', '=', 'formats').executeTakeFirstOrThrow();
    expect(formats.content).toContain('<!-- kb:fragment _common/formats.md -->');
    const shown = await new DocumentsService(testDb.database, logger).get(formats.id);
    expect(shown.content).not.toContain('kb:fragment');
    expect(shown.content).toContain('requires rst2html');

    const query = 'render AsciiDoc content Asciidoctor';
    for (const mode of ['hybrid', 'semantic'] as const) {
      const results = await search.search({ query, topK: 5, mode });
      expect(results[0]?.slug, mode).toBe('markup');
      expect(results.filter((r) => r.content.includes('rst2html')), mode).toHaveLength(1);
      // The fragment ranks the results; it is not part of them.
      expect(results.every((r) => !('fragment' in r)), mode).toBe(true);
    }
    // Ranked from the candidates' texts (chunks written before their terms were stored), the same.
    const inStatement = await search.searchScored({ query, topK: 5, mode: 'hybrid' });
    await sql`update chunks set lexical_terms = null`.execute(testDb.database.db);
    expect(await search.searchScored({ query, topK: 5, mode: 'hybrid' })).toEqual(inStatement);
  });

  it('stores the fragment of every chunk of a document written in several statements', async () => {
    testDb = await createTestDatabase(kind);
    const ingestion = new IngestionService(testDb.database, new LocalEmbedder(), logger);
    // More children than the embedded store writes in one statement (128): the rest go in statements of their own.
    const sections = Array.from({ length: 150 }, (_, i) => `## Option ${i}\n\nOption ${i} sets setting number ${i}.`).join('\n\n');
    await ingestion.ingest({ namespace: 'user_docs', slug: 'options', title: 'Options', content: `# Options\n\nOwn words.\n${markFragment(sections, 'opts.md')}` });
    const stored = await testDb.database.db.selectFrom('chunks').select(['content', 'fragment']).execute();
    expect(stored).toHaveLength(151);
    expect(stored.filter((c) => c.fragment === 'opts.md')).toHaveLength(150);
    expect(stored.filter((c) => c.fragment === null).map((c) => c.content)).toEqual(['Own words.']);
  });
});
