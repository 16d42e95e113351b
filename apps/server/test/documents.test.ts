import { testStoreKinds } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { startMockServer } from './msw.ts';
import { securitySuite } from './security.ts';

const kinds = await testStoreKinds();

const GUIDE = `---
url: https://docs.example.com/guide/
---
# Guide

Intro paragraph about the guide.

## Install

Run the installer and follow the prompts.

## Configure

Edit the configuration file and restart the service.
`;

describe.each(kinds)('documents over HTTP (%s)', (kind) => {
  let service: TestService;
  let admin: string;
  let mock: ReturnType<typeof startMockServer>;
  const ingest = (body: Record<string, unknown>) =>
    service.api('/api/v1/ingest/md', { method: 'POST', key: admin, json: body }).then(json) as Promise<{ documentId: string; skipped: boolean }>;
  const list = (query = '') => service.api(`/api/v1/documents${query}`, { key: admin });

  beforeAll(async () => {
    mock = startMockServer();
    service = await startTestService(kind, { env: { KB_FAQ_RATE_LIMIT_PER_MINUTE: '1000' } });
    admin = (await service.createKey({ admin: true })).key;
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    mock?.close();
  });

  it('lists documents most recently updated first, with total, filters and pages', async () => {
    const a = await ingest({ title: 'Alpha page', slug: 'docs/alpha.md', namespace: 'user_docs', content: '# Alpha\n\nAlpha text.' });
    const b = await ingest({ title: 'Beta 100% page', slug: 'docs/beta.md', namespace: 'tech_docs', content: '# Beta\n\nBeta text.' });
    const c = await ingest({ title: 'Gamma', slug: 'other/gamma_1.md', namespace: 'user_docs', content: '# Gamma\n\nGamma text.', metadata: { team: 'docs' } });

    const res = await list('?q=page');
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ total: 2, take: 50, skip: 0 });
    expect(body.documents.map((d: { id: string }) => d.id)).toEqual([b.documentId, a.documentId]);

    const all = await json(await list());
    expect(all.documents.map((d: { id: string }) => d.id).slice(0, 3)).toEqual([c.documentId, b.documentId, a.documentId]);
    const gamma = all.documents[0];
    expect(gamma).toEqual({
      id: c.documentId,
      namespace: 'user_docs',
      slug: 'other/gamma_1.md',
      title: 'Gamma',
      metadata: { team: 'docs' },
      chunkCount: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(new Date(gamma.updatedAt).toISOString()).toBe(gamma.updatedAt);

    // Filters: namespace, slug or title contains (case ignored; % and _ are literal), pages.
    expect((await json(await list('?namespace=tech_docs'))).documents.map((d: { id: string }) => d.id)).toEqual([b.documentId]);
    expect((await json(await list('?q=ALPHA'))).documents.map((d: { id: string }) => d.id)).toEqual([a.documentId]);
    expect((await json(await list('?q=100%25'))).documents.map((d: { id: string }) => d.id)).toEqual([b.documentId]);
    expect((await json(await list('?q=a_1'))).documents.map((d: { id: string }) => d.id)).toEqual([c.documentId]);
    expect((await json(await list('?q=a_'))).total).toBe(1);
    const page = await json(await list('?q=docs%2F&limit=1&offset=1'));
    expect(page).toMatchObject({ total: 2, take: 1, skip: 1 });
    expect(page.documents.map((d: { id: string }) => d.id)).toEqual([a.documentId]);
    expect(await json(await list('?limit=1000'))).toMatchObject({ take: 200 });

    // Re-ingesting a changed document moves it to the top.
    await ingest({ title: 'Alpha page', slug: 'docs/alpha.md', namespace: 'user_docs', content: '# Alpha\n\nAlpha text, changed.' });
    expect((await json(await list())).documents[0].id).toBe(a.documentId);
  });

  it('reads a document: its Markdown, its link and its chunks in order', async () => {
    const { documentId } = await ingest({ title: 'Guide', slug: 'guide', namespace: 'user_docs', content: GUIDE });
    const res = await service.api(`/api/v1/documents/${documentId}`, { key: admin });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ id: documentId, slug: 'guide', title: 'Guide', url: 'https://docs.example.com/guide/', content: GUIDE });
    expect(body.metadata).toMatchObject({ url: 'https://docs.example.com/guide/' });
    expect(body.chunks.length).toBe(body.chunkCount);
    expect(body.chunks.map((c: { headingPath: string }) => c.headingPath)).toEqual(['Guide', 'Guide > Install', 'Guide > Configure']);
    for (const chunk of body.chunks) {
      expect(chunk).toEqual({ chunkId: expect.any(String), headingPath: expect.any(String), content: expect.any(String), tokenCount: expect.any(Number) });
    }
    expect(body.chunks[1].content).toContain('Run the installer');
    // Listed with its link too.
    const listed = (await json(await list('?q=guide'))).documents.find((d: { id: string }) => d.id === documentId);
    expect(listed.url).toBe('https://docs.example.com/guide/');
  });

  it('search results and chat sources carry the slug and the link', async () => {
    const { documentId } = await ingest({ title: 'Guide', slug: 'guide', namespace: 'user_docs', content: GUIDE });
    const same = await ingest({ title: 'Guide', slug: 'guide-copy', namespace: 'tech_docs', content: '# Guide\n\n## Install\n\nRun the installer as an administrator.\n' });
    const found = await json(await service.api('/api/v1/search', { method: 'POST', key: admin, json: { query: 'run the installer', topK: 10 } }));
    const hit = found.results.find((r: { documentId: string }) => r.documentId === documentId);
    expect(hit).toMatchObject({ slug: 'guide', url: 'https://docs.example.com/guide/' });
    const other = found.results.find((r: { documentId: string }) => r.documentId === same.documentId);
    expect(other.slug).toBe('guide-copy');
    expect(other).not.toHaveProperty('url');
    const hybrid = await json(await service.api('/api/v1/search', { method: 'POST', key: admin, json: { query: 'run the installer', mode: 'hybrid', topK: 10 } }));
    expect(hybrid.results.find((r: { documentId: string }) => r.documentId === documentId)).toMatchObject({ slug: 'guide', url: 'https://docs.example.com/guide/' });

    const chat = await json(
      await service.api('/api/v1/chat', { method: 'POST', key: admin, json: { message: 'How do I run the installer?', source: 'user_docs', stream: false } }),
    );
    // The link goes to the section the answer drew on (its heading's anchor).
    expect(chat.sources).toContainEqual({ title: 'Guide', documentId, slug: 'guide', namespace: 'user_docs', url: 'https://docs.example.com/guide/', anchor: 'install', section: 'Install' });
  });

  it('collapses a passage repeated word for word by other documents to the best-ranked one', async () => {
    const shared = 'The quokka flag sets the marsupial logging level for every command.';
    const ids = [];
    for (const name of ['one', 'two', 'three']) {
      ids.push((await ingest({ title: `Command ${name}`, slug: `cmd-${name}`, namespace: 'tech_docs', content: `# Command ${name}\n\n## Flags\n\n${shared}\n` })).documentId);
    }
    for (const mode of ['semantic', 'hybrid']) {
      const found = await json(await service.api('/api/v1/search', { method: 'POST', key: admin, json: { query: 'quokka marsupial logging level', source: 'tech_docs', topK: 5, mode } }));
      const copies = found.results.filter((r: { content: string }) => r.content.includes('quokka'));
      expect(copies, mode).toHaveLength(1);
      expect(ids).toContain(copies[0].documentId);
    }
  });

  it('deletes a document and its chunks; search no longer finds it; 404 afterwards', async () => {
    const { documentId } = await ingest({ title: 'Doomed', slug: 'doomed', namespace: 'user_docs', content: '# Doomed\n\nThe zeppelin hangar closes at dusk.' });
    const search = () =>
      service
        .api('/api/v1/search', { method: 'POST', key: admin, json: { query: 'zeppelin hangar dusk', topK: 20 } })
        .then(json)
        .then((b) => b.results.filter((r: { documentId: string }) => r.documentId === documentId).length);
    expect(await search()).toBeGreaterThan(0);
    const res = await service.api(`/api/v1/documents/${documentId}`, { method: 'DELETE', key: admin });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ deleted: true, id: documentId });
    expect(await search()).toBe(0);
    const db = service.services.database.db;
    expect(await db.selectFrom('chunks').select('id').where('document_id', '=', documentId).execute()).toEqual([]);
    expect(await db.selectFrom('parent_chunks').select('id').where('document_id', '=', documentId).execute()).toEqual([]);
    for (const method of ['GET', 'DELETE']) {
      const again = await service.api(`/api/v1/documents/${documentId}`, { method, key: admin });
      expect(again.status).toBe(404);
      expect(await json(again)).toMatchObject({ code: 'NOT_FOUND', message: 'No such document' });
    }
  });

  it('deletes with a folder only while the document records that folder (a prune never deletes what another folder took over)', async () => {
    const page = { title: 'Shared', slug: 'shared.md', namespace: 'user_docs', content: '# Shared\n\nThe otter manual.' };
    const { documentId } = await ingest({ ...page, folder: '/srv/old' });
    // A run over another folder writes the same document meanwhile.
    await ingest({ ...page, content: '# Shared\n\nThe otter manual, revised.', folder: '/srv/new' });
    const kept = await service.api(`/api/v1/documents/${documentId}?folder=${encodeURIComponent('/srv/old')}`, { method: 'DELETE', key: admin });
    expect(kept.status).toBe(404);
    expect((await service.api(`/api/v1/documents/${documentId}`, { key: admin })).status).toBe(200);
    const deleted = await service.api(`/api/v1/documents/${documentId}?folder=${encodeURIComponent('/srv/new')}`, { method: 'DELETE', key: admin });
    expect(await json(deleted)).toEqual({ deleted: true, id: documentId });
  });

  it('records the folder a folder sync read a document from, even when the document is unchanged', async () => {
    const page = { title: 'Synced', slug: 'synced.md', namespace: 'user_docs', content: '# Synced\n\nFrom a folder.' };
    const first = await ingest(page);
    expect((await json(await list('?folder=%2Fsrv%2Fdocs'))).total).toBe(0);
    const again = await ingest({ ...page, folder: '/srv/docs' });
    expect(again).toEqual({ documentId: first.documentId, skipped: true });
    const listed = await json(await list('?folder=%2Fsrv%2Fdocs'));
    expect(listed.documents).toEqual([expect.objectContaining({ id: first.documentId, folder: '/srv/docs' })]);
    // Ingestion without a folder leaves it as it is; another folder run takes it over.
    await ingest({ ...page, content: '# Synced\n\nChanged by hand.' });
    expect((await json(await list('?folder=%2Fsrv%2Fdocs'))).total).toBe(1);
    await ingest({ ...page, content: '# Synced\n\nChanged by hand.', folder: '/srv/other' });
    expect((await json(await list('?folder=%2Fsrv%2Fdocs'))).total).toBe(0);
    const bad = await service.api('/api/v1/ingest/md', { method: 'POST', key: admin, json: { ...page, folder: '' } });
    expect(bad.status).toBe(400);
  });

  it('answers 404 for an unknown id, whether or not it looks like an id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id', "x'; drop table documents; --"]) {
      for (const method of ['GET', 'DELETE']) {
        const res = await service.api(`/api/v1/documents/${encodeURIComponent(id)}`, { method, key: admin });
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(await json(res)).toMatchObject({ code: 'NOT_FOUND' });
      }
    }
  });

  it('rejects bad list parameters with 400 naming them', async () => {
    const cases: Array<[string, string]> = [
      ['?namespace=nope', 'namespace'],
      ['?limit=0', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?offset=-1', 'offset'],
      ['?q=', 'q'],
    ];
    for (const [query, field] of cases) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      const body = await json(res);
      expect(body.code).toBe('BAD_REQUEST');
      expect(body.issues.map((i: { path: string[] }) => i.path.join('.'))).toContain(field);
    }
    const unknown = await list('?topk=3');
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).message).toBe('Unknown query parameter "topk": it takes only "namespace", "q", "folder", "sourceId", "limit", "offset", "cursor"');
    const extra = await service.api('/api/v1/documents/00000000-0000-4000-8000-000000000000?force=1', { method: 'DELETE', key: admin });
    expect(extra.status).toBe(400);
  });

  it('makes an FAQ drawn from a deleted document again on its next request', async () => {
    const { documentId } = await ingest({
      title: 'Taxonomies',
      slug: 'taxonomies',
      namespace: 'user_docs',
      content:
        '# Taxonomies\n\n## Define taxonomies\n\nTo define a taxonomy, list it under the taxonomies key.\n\n## Render taxonomies\n\nTo render the terms of a taxonomy, range over them in a template.\n',
    });
    expect((await service.api('/api/v1/faq?q=taxonomies')).status).toBe(200);
    expect((await json(await service.api('/api/v1/faq?q=taxonomies'))).cached).toBe(true);
    expect((await service.api(`/api/v1/documents/${documentId}`, { method: 'DELETE', key: admin })).status).toBe(200);
    expect((await service.api('/api/v1/faq?q=taxonomies')).status).toBe(404);
  });

  it('stores slugs and folders as long as the API allows, in any script', async () => {
    // 4-byte characters: longer than a B-tree index entry can hold.
    const slug = '𝔡'.repeat(1_000);
    const folder = `/docs/${'𝔣'.repeat(4_090)}`;
    const page = { title: '𝔗'.repeat(1_000), slug, folder, namespace: 'user_docs', content: '# Long\n\nA page with a long slug.' };
    const first = await ingest(page);
    expect(first.skipped).toBe(false);
    expect(await ingest(page)).toEqual({ documentId: first.documentId, skipped: true });
    const byFolder = await json(await list(`?folder=${encodeURIComponent(folder)}`));
    expect(byFolder.documents.map((d: { id: string }) => d.id)).toEqual([first.documentId]);
    // A title of 1,000 such characters is the slug when none is given.
    const untitled = await ingest({ title: '𝔘'.repeat(1_000), namespace: 'user_docs', content: '# Long\n\nAnother page.' });
    expect(untitled.skipped).toBe(false);
  });

  it('reads a path parameter as its value, not its percent-encoding', async () => {
    const { documentId } = await ingest({ title: 'Encoded', namespace: 'user_docs', content: '# Encoded\n\nText.' });
    const encoded = [...documentId].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    const res = await service.api(`/api/v1/documents/${encoded}`, { key: admin });
    expect(res.status).toBe(200);
    expect((await json(res)).id).toBe(documentId);
    // Ten 4-byte characters are ten characters (120 percent-encoded), within the 100 allowed.
    expect((await service.api(`/api/v1/documents/${encodeURIComponent('😀'.repeat(10))}`, { key: admin })).status).toBe(404);
    expect((await service.api('/api/v1/documents/%E0%A4%A', { key: admin })).status).toBe(404);
  });

  it('deletes under concurrent ingestion of the same slug: whole documents, never half of one', async () => {
    const page = (n: number) => ({ title: 'Racy', slug: 'racy', namespace: 'user_docs', content: `# Racy\n\nVersion ${n} of the page.\n\n## More\n\nSecond section ${n}.` });
    const { documentId } = await ingest(page(0));
    const outcomes = await Promise.all([
      ingest(page(1)),
      service.api(`/api/v1/documents/${documentId}`, { method: 'DELETE', key: admin }).then((r) => r.status),
      ingest(page(2)),
      ingest(page(3)),
    ]);
    expect(outcomes[1]).toBe(200);
    const db = service.services.database.db;
    const docs = await db.selectFrom('documents').select(['id', 'chunk_count']).where('slug', '=', 'racy').execute();
    expect(docs.length).toBeLessThanOrEqual(1);
    for (const doc of docs) {
      const chunks = await db.selectFrom('chunks').select('id').where('document_id', '=', doc.id).execute();
      expect(chunks.length).toBe(doc.chunk_count);
      const read = await json(await service.api(`/api/v1/documents/${doc.id}`, { key: admin }));
      expect(read.chunks.length).toBe(doc.chunk_count);
    }
    // No chunk outlives its document.
    const orphans = await db
      .selectFrom('chunks')
      .leftJoin('documents', 'documents.id', 'chunks.document_id')
      .select('chunks.id')
      .where('documents.id', 'is', null)
      .execute();
    expect(orphans).toEqual([]);
  });

  it('lets any key read a document within its namespaces, and only those', async () => {
    const doc = await ingest({ title: 'Scoped', slug: 'scoped.md', namespace: 'tech_docs', content: '# Scoped\n\nScoped text.' });
    const reader = (await service.services.keys.create({ label: 'reader', namespaces: ['tech_docs'], rateLimitRpm: 100 })).key;
    const outsider = (await service.services.keys.create({ label: 'outsider', namespaces: ['user_docs'] })).key;
    const read = await service.api(`/api/v1/documents/${doc.documentId}`, { key: reader });
    expect(read.status).toBe(200);
    expect(read.headers.get('ratelimit-limit')).not.toBeNull();
    expect(await json(read)).toMatchObject({ id: doc.documentId, namespace: 'tech_docs', content: expect.stringContaining('Scoped text.') });
    // Outside the key's namespaces the document does not exist, as one that never did.
    const hidden = await service.api(`/api/v1/documents/${doc.documentId}`, { key: outsider });
    expect(hidden.status).toBe(404);
    expect(await json(hidden)).toMatchObject({ code: 'NOT_FOUND', message: 'No such document' });
    // A publishable key reads within its namespaces too (from a page it allows).
    const page = (await service.services.keys.create({ label: 'page', kind: 'publishable', namespaces: ['tech_docs'], allowedOrigins: ['https://docs.example.com'] })).key;
    const fromPage = await service.api(`/api/v1/documents/${doc.documentId}`, { key: page, headers: { origin: 'https://docs.example.com' } });
    expect(fromPage.status).toBe(200);
    // Listing and deleting stay admin.
    expect((await service.api('/api/v1/documents', { key: reader })).status).toBe(403);
    expect((await service.api(`/api/v1/documents/${doc.documentId}`, { method: 'DELETE', key: reader })).status).toBe(403);
  });

  describe('security', () => {
    securitySuite(() => service, [
      { procedure: 'documents.list' },
      { procedure: 'documents.get', path: '/api/v1/documents/00000000-0000-4000-8000-000000000000' },
      { procedure: 'documents.delete', path: '/api/v1/documents/00000000-0000-4000-8000-000000000000' },
    ]);
  });
});
