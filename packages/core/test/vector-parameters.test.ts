import { createTestDatabase, testStoreKinds } from '@kb/db/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DocumentsRepository } from '../src/ingestion/documents.repository.ts';

const kinds = await testStoreKinds();

describe.each(kinds)('chunk vectors written on %s', (kind) => {
  // PostgreSQL receives them in binary (exact float4s); PGlite as literals of 7 significant digits.
  it('are stored as float4 values, for every chunk of a batch', async () => {
    const { database, drop } = await createTestDatabase(kind);
    try {
      const repository = new DocumentsRepository(database);
      const vector = (seed: number) => Array.from({ length: 1024 }, (_, i) => Math.sin(seed * 1000 + i) * (i % 7 === 0 ? 1e-8 : 1));
      const versions = [1, 2].map((d) => ({
        namespace: 'user_docs',
        slug: `doc-${d}`,
        title: `Doc ${d}`,
        metadata: {},
        contentHash: `h${d}`,
        parents: [{ ordinal: 0, headingPath: `Doc ${d}`, content: 'text' }],
        children: [0, 1, 2].map((c) => ({ parentOrdinal: 0, ordinal: c, headingPath: `Doc ${d}`, content: `chunk ${c}`, tokenCount: 2, embedding: vector(d * 10 + c) })),
      }));
      // A third document of 300 chunks: PGlite gets it in several statements (see insertChunks).
      versions.push({
        ...versions[0]!,
        slug: 'doc-3',
        title: 'Doc 3',
        contentHash: 'h3',
        children: Array.from({ length: 300 }, (_, c) => ({ parentOrdinal: 0, ordinal: c, headingPath: 'Doc 3', content: `chunk ${c}`, tokenCount: 2, embedding: vector(30 + c) })),
      });
      await repository.writeVersions(versions);
      const rows = await sql<{ slug: string; ordinal: number; embedding: string }>`
        select d.slug, c.ordinal, c.embedding::text as embedding
        from chunks c join documents d on d.id = c.document_id order by d.slug, c.ordinal`.execute(database.db);
      expect(rows.rows).toHaveLength(306);
      expect(rows.rows.filter((r) => r.slug === 'doc-3').map((r) => r.ordinal)).toEqual(Array.from({ length: 300 }, (_, i) => i));
      for (const row of rows.rows) {
        const expected = vector(Number(row.slug.slice(4)) * 10 + row.ordinal).map((x) => Math.fround(x));
        const stored = (JSON.parse(row.embedding) as number[]).map((x) => Math.fround(x));
        if (kind === 'postgres') expect(stored).toEqual(expected);
        else {
          // One assertion per vector (300,000 of them, one per component, took half a minute).
          expect(stored).toHaveLength(expected.length);
          const off = stored.flatMap((x, i) => (Math.abs(x - expected[i]!) <= Math.abs(expected[i]!) * 1e-6 ? [] : [{ i, x, expected: expected[i] }]));
          expect(off).toEqual([]);
        }
      }
    } finally {
      await drop();
    }
  });
});
