import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '@kb/db';
import { seedEmbeddedStore } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, run, start } from './process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'kb-cli-'));
// A migrated store to start from (`kb migrate` on a new directory is tested below).
await seedEmbeddedStore(dataDir);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const kb = (args: string[], env: Record<string, string> = {}) => run('packages/cli/src/main.ts', args, { KB_DATA_DIR: dataDir, ...env });

describe('kb CLI on the embedded store', () => {
  let adminKey = '';

  it('creates the first admin key and prints the same object as POST /keys', async () => {
    const result = await kb(['keys', 'create', '--admin', '--label', 'me', '--rpm', '100', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(Object.keys(created).sort()).toEqual(['admin', 'createdAt', 'id', 'key', 'kind', 'label', 'namespaces', 'rateLimitRpd', 'rateLimitRpm']);
    expect(created).toMatchObject({ label: 'me', admin: true, kind: 'secret', namespaces: null, rateLimitRpm: 100, rateLimitRpd: null });
    expect(created.key).toMatch(/^kb_[0-9A-Za-z]{40}$/);
    adminKey = created.key;
  });

  it('explains bad arguments', async () => {
    const missing = await kb(['keys', 'create']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--label is required');
    const badLimit = await kb(['keys', 'create', '--label', 'x', '--rpm', 'lots']);
    expect(badLimit.code).toBe(1);
    expect(badLimit.stderr).toContain('--rpm');
    const unknown = await kb(['frobnicate']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unknown command');
  });

  // A server's start and three CLI runs: tens of seconds by nature on a busy machine.
  it('never opens a store held by a running server, and says what to do', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const server = start('apps/server/src/main.ts', [], { KB_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    try {
      const url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 120_000;
      for (;;) {
        try {
          if ((await fetch(`${url}/readyz`)).ok) break;
        } catch {
          // starting
        }
        if (Date.now() > deadline) throw new Error('server did not start');
        await new Promise((r) => setTimeout(r, 200));
      }

      const refused = await kb(['keys', 'create', '--label', 'second', '--json']);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain('in use by another process');
      expect(refused.stderr).toContain('POST /api/v1/keys');
      const folder = mkdtempSync(join(tmpdir(), 'kb-folder-'));
      writeFileSync(join(folder, 'a.md'), '# A\n\nText.\n');
      const ingest = await kb(['ingest-folder', folder]);
      expect(ingest.code).toBe(2);
      expect(ingest.stderr).toContain('in use by another process');
      expect(ingest.stderr).toContain('--api-url');
      rmSync(folder, { recursive: true, force: true });

      // The server's store is intact and serves the key the CLI made.
      const listed = await fetch(`${url}/api/v1/keys`, { headers: { authorization: `Bearer ${adminKey}` } });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { keys: unknown[] }).keys).toHaveLength(1);
    } finally {
      const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
    expect(existsSync(join(dataDir, 'kb.lock'))).toBe(false);
    const after = await kb(['keys', 'list', '--json']);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).keys).toHaveLength(1);
  });

  it('refuses to start on bad configuration, naming every bad variable', async () => {
    const result = await run('apps/server/src/main.ts', [], { KB_DATA_DIR: dataDir, PORT: 'eighty', REDIS_URL: 'http://nope', KB_ALLOW_PRIVATE_URLS: 'perhaps' });
    expect(result.code).toBe(1);
    for (const name of ['PORT', 'REDIS_URL', 'KB_ALLOW_PRIVATE_URLS']) expect(result.stderr).toContain(name);
    expect(result.stderr).not.toMatch(/at .+\.ts:\d+/);
  });
});

describe('kb migrate', () => {
  it('rebuilds a vector index another version defined differently, says so, and only once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kb-migrate-'));
    try {
      const first = await run('packages/cli/src/main.ts', ['migrate'], { KB_DATA_DIR: dir });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain('Applied');
      // An index on another expression, as an earlier version could have left it, over a store
      // that holds chunks.
      const database = await createDatabase({ kind: 'pglite', dataDir: dir });
      try {
        await database.db.insertInto('namespaces').values({ id: 'user_docs' }).onConflict((c) => c.doNothing()).execute();
        const doc = await database.db
          .insertInto('documents')
          .values({ namespace: 'user_docs', slug: 's', title: 'T', metadata: JSON.stringify({}), content_hash: 'h' })
          .returning('id')
          .executeTakeFirstOrThrow();
        await database.db
          .insertInto('chunks')
          .values({ document_id: doc.id, namespace: 'user_docs', ordinal: 0, heading_path: 'T', content: 'text', token_count: 1, embedding: `[${[1, ...new Array(1023).fill(0)].join(',')}]` })
          .execute();
        await sql`drop index chunks_embedding_idx`.execute(database.db);
        await sql`create index chunks_embedding_idx on chunks using hnsw ((subvector(embedding, 1, 512)::vector(512)) vector_cosine_ops)`.execute(database.db);
      } finally {
        await database.close();
      }
      const second = await run('packages/cli/src/main.ts', ['migrate'], { KB_DATA_DIR: dir });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain('Building the vector index');
      expect(second.stdout).toContain('Built the vector index');
      const third = await run('packages/cli/src/main.ts', ['migrate'], { KB_DATA_DIR: dir });
      expect(third.stdout).toContain('already up to date');
      expect(third.stderr).not.toContain('Building the vector index');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Three store openings, the first of them an initdb: minutes on a busy 2-core machine.
  }, 240_000);
});
