import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testStoreKinds } from '@kb/db/testing';
import { readBackupEvents, restoreBackup, writeBackup, type TableSummary } from '@kb/db';
import { ADMIN_PASSWORD, startTestService, type TestService } from './helpers.ts';

const kinds = await testStoreKinds();

const BACKUP = '/api/v1/admin/backup';

describe.each(kinds)('GET /api/v1/admin/backup on %s', (kind) => {
  let service: TestService;
  let admin: string;
  beforeAll(async () => {
    service = await startTestService(kind);
    admin = (await service.createKey({ admin: true })).key;
  });
  afterAll(() => service?.close());

  it('is for admins only: 401 without or with an unknown key, 403 for other keys', async () => {
    const none = await service.api(BACKUP);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await service.api(BACKUP, { key: `kb_${'A'.repeat(40)}` })).status).toBe(401);
    const user = await service.createKey({ admin: false });
    const refused = await service.api(BACKUP, { key: user.key });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'FORBIDDEN' });
    const page = await service.services.keys.create({ label: 'page', kind: 'publishable', namespaces: ['user_docs'], allowedOrigins: ['https://docs.example.com'] });
    expect((await service.api(BACKUP, { key: page.key, headers: { origin: 'https://docs.example.com' } })).status).toBe(403);
    expect((await service.api(`${BACKUP}?x=1`, { key: admin })).status).toBe(400);
  });

  it('streams a backup of the whole store that restores to the same content, while ingestion goes on', async () => {
    // Documents go in while the backup is read: it holds a state the store was in, whole.
    let writing = true;
    const ingested: Promise<unknown>[] = [];
    const ingest = async () => {
      for (let i = 0; writing && i < 40; i++) {
        const content = `# Page ${i}\n\n${'Installing the service takes a minute. '.repeat(40)}\n\n## Part two\n\n${'Configure the port and the data folder. '.repeat(40)}`;
        const res = await service.api('/api/v1/ingest/md', { method: 'POST', key: admin, json: { title: `Page ${i}`, slug: `page-${i}`, namespace: 'user_docs', content } });
        expect(res.status).toBe(200);
      }
    };
    await service.api('/api/v1/ingest/md', { method: 'POST', key: admin, json: { title: 'First', slug: 'first', namespace: 'user_docs', content: '# First\n\nHello.' } });
    ingested.push(ingest());
    await new Promise((resolve) => setTimeout(resolve, 300));
    const res = await service.api(BACKUP, { key: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="kb-backup-.+\.kbb"$/);
    const bytes = Buffer.from(await res.arrayBuffer());
    writing = false;
    await Promise.all(ingested);

    let tables: TableSummary[] = [];
    for await (const event of readBackupEvents(Readable.from([bytes]))) if (event.kind === 'done') tables = event.tables;
    expect(tables.find((t) => t.name === 'api_keys')!.rows).toBeGreaterThanOrEqual(1);
    expect(tables.find((t) => t.name === 'documents')!.rows).toBeGreaterThanOrEqual(1);

    const target = await createTestDatabase(kind);
    try {
      await restoreBackup(Readable.from([bytes]), { kind: 'embedded', database: target.database });
      expect((await writeBackup({ kind: 'embedded', database: target.database }, null)).tables).toEqual(tables);
      // Consistent: every document holds exactly the chunks it counts, every chunk its parent.
      const { rows } = await sql<{ slug: string; chunk_count: number; chunks: number }>`
        select d.slug, d.chunk_count, (select count(*)::int from chunks c where c.document_id = d.id) as chunks from documents d`.execute(target.database.db);
      expect(rows.length).toBe(tables.find((t) => t.name === 'documents')!.rows);
      for (const row of rows) expect(row.chunks, row.slug).toBe(row.chunk_count);
      // The admin key restored with its hash still authenticates.
      const keyRows = await sql<{ n: number }>`select count(*)::int as n from api_keys where is_admin`.execute(target.database.db);
      expect(keyRows.rows[0]!.n).toBeGreaterThanOrEqual(1);
    } finally {
      await target.drop();
    }
  });

  it('answers an admin session too, and HEAD without a body', async () => {
    const login = await service.api('/api/v1/auth/login', { method: 'POST', json: { password: ADMIN_PASSWORD } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const res = await service.api(BACKUP, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    const head = await service.api(BACKUP, { method: 'HEAD', key: admin });
    expect(head.status).toBe(200);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });
});
