import { Readable, Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { restoreBackup, writeBackup, type BackupStore } from '@kb/db';
import { createTestDatabase, fillEveryTable, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { VisitorTokens } from '../src/assistant/visitor-tokens.ts';

const kinds = await testStoreKinds();
const opened: TestDatabase[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.drop()));
});

async function open(kind: (typeof kinds)[number]): Promise<{ test: TestDatabase; store: BackupStore }> {
  const test = await createTestDatabase(kind);
  opened.push(test);
  return { test, store: kind === 'postgres' ? { kind: 'postgres', databaseUrl: test.url! } : { kind: 'embedded', database: test.database } };
}

async function backupBytes(store: BackupStore): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await writeBackup(
    store,
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
    }),
  );
  return Buffer.concat(chunks);
}

async function signingSecret(test: TestDatabase): Promise<string | undefined> {
  const { rows } = await sql<{ value: string }>`select value::text as value from store_meta where key = 'visitor_tokens'`.execute(test.database.db);
  return rows[0] ? (JSON.parse(rows[0].value) as { secret: string }).secret : undefined;
}

describe.each(kinds)('the visitor-token signing secret and backups (%s)', (kind) => {
  it('is left out of a backup, and a restored store makes a new one that works', async () => {
    const source = await open(kind);
    await fillEveryTable(source.test.database, { documents: 1 });
    const tokens = new VisitorTokens(source.test.database.db, { ttlMs: 3_600_000 });
    const earned = await tokens.issue('key-1', '203.0.113.5');
    expect(await tokens.verify(earned.token, 'key-1', '203.0.113.5')).toBe(true);
    const secret = await signingSecret(source.test);
    expect(secret).toBeDefined();

    const bytes = await backupBytes(source.store);
    const text = gunzipSync(bytes).toString('utf8');
    expect(text).not.toContain(secret!);
    expect(text).not.toContain('visitor_tokens');
    // The rest of store_meta is there (the fixture's row).
    expect(text).toContain('backup-fixture');

    // The target made a secret of its own before: a restore replaces the store's content, that included.
    const target = await open(kind);
    await new VisitorTokens(target.test.database.db, { ttlMs: 3_600_000 }).issue('key-1', '203.0.113.5');
    const before = await signingSecret(target.test);
    await restoreBackup(Readable.from([bytes]), target.store);
    expect(await signingSecret(target.test)).toBeUndefined();

    const restored = new VisitorTokens(target.test.database.db, { ttlMs: 3_600_000 });
    // A token earned before the backup is not accepted by the restored store: visitors earn one again.
    expect(await restored.verify(earned.token, 'key-1', '203.0.113.5')).toBe(false);
    const again = await restored.issue('key-1', '203.0.113.5');
    expect(await restored.verify(again.token, 'key-1', '203.0.113.5')).toBe(true);
    const made = await signingSecret(target.test);
    expect(made).toBeDefined();
    expect(made).not.toBe(secret);
    expect(made).not.toBe(before);
    // The source keeps its own.
    expect(await tokens.verify(earned.token, 'key-1', '203.0.113.5')).toBe(true);
  });
});
