import { testStoreKinds } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { startMockServer } from './msw.ts';

const kinds = await testStoreKinds();

describe.each(kinds)('admin lists paged by cursor (%s)', (kind) => {
  let service: TestService;
  let admin: string;
  let mock: ReturnType<typeof startMockServer>;

  /** Every id of a list, read page by page following nextCursor. */
  async function readAll(path: string, field: string, query: string): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await service.api(`${path}?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, { key: admin });
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.skip).toBe(0);
      ids.push(...body[field].map((row: { id: string }) => row.id));
      cursor = body.nextCursor;
      pages++;
      expect(pages).toBeLessThan(50);
    } while (cursor !== null);
    return { ids, pages };
  }

  beforeAll(async () => {
    mock = startMockServer();
    service = await startTestService(kind);
    admin = (await service.createKey({ admin: true })).key;
    for (let i = 0; i < 9; i++) {
      const res = await service.api('/api/v1/ingest/md', {
        method: 'POST',
        key: admin,
        json: { title: `Page ${i}`, slug: `page-${i}`, namespace: i % 3 === 0 ? 'wiki' : 'user_docs', content: `# Page ${i}\n\nThe answer to question ${i} is ${i * 7}.` },
      });
      expect(res.ok).toBe(true);
    }
    // Five documents updated at the very same instant: the cursor must order them by id.
    await sql`update documents set updated_at = '2026-11-27 10:00:00.123456+00' where slug in ('page-1', 'page-2', 'page-3', 'page-4', 'page-5')`.execute(service.services.database.db);
    for (let i = 0; i < 5; i++) {
      const res = await service.api('/api/v1/chat', { method: 'POST', key: admin, json: { message: `What is the answer to question ${i}?`, stream: false } });
      expect(res.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });

  it('pages documents by cursor in the order offsets page them, ties included', async () => {
    const all = await json(await service.api('/api/v1/documents?limit=100', { key: admin }));
    expect(all.total).toBe(9);
    expect(all.nextCursor).toBeNull();
    const paged = await readAll('/api/v1/documents', 'documents', 'limit=2');
    expect(paged.pages).toBe(5);
    expect(paged.ids).toEqual(all.documents.map((d: { id: string }) => d.id));

    const wiki = await json(await service.api('/api/v1/documents?namespace=wiki&limit=100', { key: admin }));
    const wikiPaged = await readAll('/api/v1/documents', 'documents', 'namespace=wiki&limit=1');
    expect(wikiPaged.ids).toEqual(wiki.documents.map((d: { id: string }) => d.id));
    expect(wikiPaged.ids).toHaveLength(3);
  });

  it('pages conversations by cursor, newest first', async () => {
    const all = await json(await service.api('/api/v1/conversations?limit=100', { key: admin }));
    expect(all.total).toBe(5);
    const paged = await readAll('/api/v1/conversations', 'conversations', 'limit=2');
    expect(paged.ids).toEqual(all.conversations.map((c: { id: string }) => c.id));
    expect(paged.pages).toBe(3);
  });

  it('refuses a cursor it did not make, and a cursor with an offset', async () => {
    for (const cursor of ['nonsense', Buffer.from('["yesterday","x"]').toString('base64url'), '']) {
      const res = await service.api(`/api/v1/documents?cursor=${encodeURIComponent(cursor)}`, { key: admin });
      expect(res.status).toBe(400);
      expect((await json(res)).message).toMatch(/cursor/);
    }
    const first = await json(await service.api('/api/v1/feedback?limit=1', { key: admin }));
    expect(first.nextCursor).toBeNull();
    const page = await json(await service.api('/api/v1/documents?limit=1', { key: admin }));
    const both = await service.api(`/api/v1/documents?offset=1&cursor=${encodeURIComponent(page.nextCursor)}`, { key: admin });
    expect(both.status).toBe(400);
    expect((await json(both)).message).toBe('Give either cursor or offset, not both');
  });
});
