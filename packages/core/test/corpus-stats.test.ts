import { createLogger } from '@kb/core';
import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentsService } from '../src/documents/documents.service.ts';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { SearchRepository } from '../src/search/search.repository.ts';

const kinds = await testStoreKinds();

function page(i: number, extra = ''): string {
  return `# Page ${i}\n\nThe gateway routes request number ${i} to a worker.${extra}\n\n## Limits\n\nEach worker takes ${i % 3} retries; a day-old token is refused.\n`;
}

describe.each(kinds)('corpus statistics on %s', (kind) => {
  let store: TestDatabase;
  let ingestion: IngestionService;
  let documents: DocumentsService;
  const logger = createLogger({ level: 'silent' });

  /** The statistics the store keeps, and the same counted over the chunks as they are now. */
  async function kept() {
    const db = store.database.db;
    const [corpus, counted, terms, recount] = await Promise.all([
      sql<{ chunks: string; documents: string; tokens: string }>`select chunks, documents, tokens from corpus_stats`.execute(db),
      sql<{ chunks: string; documents: string; tokens: string }>`
        select count(*) as chunks, count(distinct document_id) as documents, coalesce(sum(token_count), 0) as tokens from chunks`.execute(db),
      sql<{ term: string; chunks: number }>`select term, chunks from term_stats order by term`.execute(db),
      sql<{ term: string; chunks: number }>`
        select lexeme as term, count(*)::int as chunks from chunks, unnest(search_tsv) group by lexeme order by lexeme`.execute(db),
    ]);
    const row = (r: { chunks: string; documents: string; tokens: string }) => ({ chunks: Number(r.chunks), documents: Number(r.documents), tokens: Number(r.tokens) });
    return { corpus: row(corpus.rows[0]!), counted: row(counted.rows[0]!), terms: terms.rows, recount: recount.rows };
  }

  async function expectExact(): Promise<{ chunks: number; documents: number; terms: number }> {
    const { corpus, counted, terms, recount } = await kept();
    expect(corpus).toEqual(counted);
    expect(terms).toEqual(recount);
    // Documents per namespace, as the documents list and the namespaces read them.
    const db = store.database.db;
    const [namespaces, documentsCounted] = await Promise.all([
      sql<{ namespace: string; documents: number }>`select namespace, documents::int from namespace_stats where documents > 0 order by namespace`.execute(db),
      sql<{ namespace: string; documents: number }>`select namespace, count(*)::int as documents from documents group by namespace order by namespace`.execute(db),
    ]);
    expect(namespaces.rows).toEqual(documentsCounted.rows);
    for (const { namespace, documents: n } of documentsCounted.rows) {
      expect((await documents.list({ namespace: namespace as 'wiki', limit: 1 })).total).toBe(n);
    }
    expect((await documents.list({ limit: 1 })).total).toBe(documentsCounted.rows.reduce((sum, r) => sum + r.documents, 0));
    return { chunks: corpus.chunks, documents: corpus.documents, terms: terms.length };
  }

  beforeAll(async () => {
    store = await createTestDatabase(kind);
    ingestion = new IngestionService(store.database, new LocalEmbedder(), logger);
    documents = new DocumentsService(store.database, logger);
  }, 60_000);
  afterAll(() => store?.drop());

  it('starts empty', async () => {
    expect(await expectExact()).toEqual({ chunks: 0, documents: 0, terms: 0 });
  });

  it('counts what ingestion writes, one document or many', async () => {
    const one = await ingestion.ingest({ namespace: 'user_docs', title: 'Page 0', slug: 'page-0', content: page(0) });
    expect(one.chunks).toBeGreaterThan(0);
    const many = await ingestion.ingestMany(
      Array.from({ length: 12 }, (_, i) => ({ namespace: i % 2 ? ('wiki' as const) : ('user_docs' as const), title: `Page ${i + 1}`, slug: `page-${i + 1}`, content: page(i + 1) })),
    );
    for (const result of many) if (result instanceof Error) throw result;
    const counts = await expectExact();
    expect(counts.documents).toBe(13);
    expect(counts.terms).toBeGreaterThan(10);
    const frequency = await sql<{ chunks: number }>`select chunks from term_stats where term = 'gateway'`.execute(store.database.db);
    expect(frequency.rows[0]?.chunks).toBe(13);
  });

  it('stays exact when a document is re-ingested unchanged, changed, or with other words', async () => {
    const before = await expectExact();
    await ingestion.ingest({ namespace: 'user_docs', title: 'Page 0', slug: 'page-0', content: page(0) });
    expect(await expectExact()).toEqual(before);
    await ingestion.ingest({ namespace: 'user_docs', title: 'Page 0', slug: 'page-0', content: page(0, ' Zeppelins hover over the quokka.') });
    const changed = await expectExact();
    expect(changed.documents).toBe(before.documents);
    expect(changed.terms).toBeGreaterThan(before.terms);
    await ingestion.ingest({ namespace: 'user_docs', title: 'Page 0', slug: 'page-0', content: page(0) });
    // The words only the changed version held are gone from the statistics.
    expect(await expectExact()).toEqual(before);
  });

  it('stays exact when documents are deleted, one or a namespace at once', async () => {
    const before = await expectExact();
    const listed = await documents.list({ namespace: 'user_docs', limit: 1 });
    await documents.delete(listed.documents[0]!.id);
    const one = await expectExact();
    expect(one.documents).toBe(before.documents - 1);
    expect(one.chunks).toBeLessThan(before.chunks);

    // A source's complete listing removes every document of the namespace it no longer holds.
    const removed = await ingestion.removeMissing('wiki', '', new Set());
    expect(removed).toBe(6);
    const wikiGone = await expectExact();
    expect(wikiGone.documents).toBe(one.documents - 6);

    await sql`delete from chunks where namespace = 'user_docs'`.execute(store.database.db);
    expect(await expectExact()).toEqual({ chunks: 0, documents: 0, terms: 0 });
    // A document moved to another namespace, then every document at once.
    await sql`update documents set namespace = 'wiki' where id = (select id from documents order by id limit 1)`.execute(store.database.db);
    await expectExact();
    await sql`delete from documents`.execute(store.database.db);
    await expectExact();
    expect((await documents.list({ limit: 1 })).total).toBe(0);
  });

  it('is what the lexical ranking reads', async () => {
    await ingestion.ingest({ namespace: 'user_docs', title: 'Quokka', slug: 'quokka', content: '# Quokka\n\nThe quokka hops between the gateway and the worker.\n' });
    await ingestion.ingest({ namespace: 'user_docs', title: 'Page 20', slug: 'page-20', content: page(20) });
    const repository = new SearchRepository(store.database);
    const stats = await repository.corpusStats();
    const counted = (await kept()).counted;
    expect(stats.n).toBe(counted.chunks);
    expect(stats.documents).toBe(counted.documents);
    expect(stats.documents).toBe(2);
    expect(stats.avgdl).toBeCloseTo(counted.tokens / counted.chunks, 9);
    const { hits, wordFrequencies } = await repository.lexical('quokka gateway', null, 5, ['quokka', 'gateway', 'the']);
    expect(hits[0]?.documentTitle).toBe('Quokka');
    expect(Object.fromEntries(wordFrequencies)).toEqual({ quokka: 1, gateway: 2 });
  });

  it('stays exact with writers and deleters at once', async () => {
    const writes = Array.from({ length: 8 }, (_, i) =>
      ingestion.ingest({ namespace: 'user_docs', title: `Busy ${i}`, slug: `busy-${i}`, content: page(100 + i, ' Shared words: gateway, worker, quokka.') }),
    );
    const rewrites = Array.from({ length: 4 }, (_, i) =>
      ingestion.ingest({ namespace: 'user_docs', title: 'Quokka', slug: 'quokka', content: `# Quokka\n\nVersion ${i} of the quokka page, beside the gateway.\n` }),
    );
    const deletes = (await documents.list({ namespace: 'user_docs' })).documents.map((d) => documents.delete(d.id).catch(() => undefined));
    await Promise.all([...writes, ...rewrites, ...deletes]);
    await expectExact();
  });

  it('empties with the table', async () => {
    await sql`truncate chunks cascade`.execute(store.database.db);
    expect(await expectExact()).toEqual({ chunks: 0, documents: 0, terms: 0 });
  });
});
