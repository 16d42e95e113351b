import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeysRepository, ApiKeysService } from '@kb/core';
import { createDatabase, readBackupEvents, writeBackup, type Database, type TableSummary } from '@kb/db';
import { createEmptyPostgresDatabase, fillEveryTable, isPostgresAvailable, seedEmbeddedStore } from '@kb/db/testing';
import { entryArgs } from '@kb/vitest-config/entry';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, ROOT, run, start } from './process.ts';

const work = mkdtempSync(join(tmpdir(), 'kb-backup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const postgres = await isPostgresAvailable();
const dropLater: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of dropLater) await drop().catch(() => undefined);
});

const kb = (args: string[], env: Record<string, string>) => run('packages/cli/src/main.ts', args, env);
const embedded = (dir: string) => ({ KB_DATA_DIR: dir });
const onPostgres = (url: string) => ({ DATABASE_URL: url });

type Storage = { dir: string } | { url: string };

async function withStore<T>(storage: Storage, fn: (database: Database) => Promise<T>): Promise<T> {
  const database = await createDatabase('dir' in storage ? { kind: 'pglite', dataDir: storage.dir } : { kind: 'postgres', databaseUrl: storage.url, poolSize: 1 });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

const summaries = (storage: Storage) =>
  withStore(storage, async (database) => (await writeBackup('dir' in storage ? { kind: 'embedded', database } : { kind: 'postgres', databaseUrl: storage.url }, null)).tables);

/** An embedded store holding rows in every table, and an admin key made the way the CLI makes one. */
async function filledEmbeddedStore(documents = 3): Promise<{ dir: string; key: string; conversations: string[] }> {
  const dir = mkdtempSync(join(work, 'store-'));
  await seedEmbeddedStore(dir);
  return withStore({ dir }, async (database) => {
    await fillEveryTable(database, { documents, model: 'local-lexical-v1-1024' });
    const created = await new ApiKeysService(new ApiKeysRepository(database.db)).create({ label: 'ops', admin: true, rateLimitRpm: null, rateLimitRpd: null });
    const conversations = (await sql<{ id: string }>`select id::text from conversations order by id`.execute(database.db)).rows.map((r) => r.id);
    return { dir, key: created.key, conversations };
  });
}

async function emptyPostgres(): Promise<string> {
  const created = await createEmptyPostgresDatabase();
  dropLater.push(created.drop);
  return created.url;
}

/** Each test runs several commands, each a process that opens a store: minutes on a busy machine. */
const LONG = 600_000;

const moveLines = (stdout: string) => stdout.split('\n').filter((line) => / -> /.test(line) || /->/.test(line));

describe.runIf(postgres)('kb move between the embedded store and PostgreSQL', () => {
  it('moves everything to PostgreSQL and back: same rows and checksums, keys still valid, conversation ids unchanged', async () => {
    const source = await filledEmbeddedStore();
    const before = await summaries({ dir: source.dir });
    const url = await emptyPostgres();

    const there = await kb(['move', '--to', url], embedded(source.dir));
    expect(there.code, there.stderr).toBe(0);
    expect(there.stdout).toContain('Every table matches');
    const rows = there.stdout.split('\n').filter((line) => /\b(same|DIFFERENT)$/.test(line));
    expect(rows).toHaveLength(before.length);
    expect(rows.every((line) => line.endsWith('same'))).toBe(true);
    expect(await summaries({ url })).toEqual(before);
    await withStore({ url }, async (database) => {
      expect(await new ApiKeysService(new ApiKeysRepository(database.db)).authenticate(source.key)).toMatchObject({ admin: true });
      expect((await sql<{ id: string }>`select id::text from conversations order by id`.execute(database.db)).rows.map((r) => r.id)).toEqual(source.conversations);
    });

    // Moving again into a store that holds data is refused, and changes nothing.
    const again = await kb(['move', '--to', url], embedded(source.dir));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('The store is not empty');

    const back = join(work, 'back');
    const home = await kb(['move', '--to', back], onPostgres(url));
    expect(home.code, home.stderr).toBe(0);
    expect(home.stdout).toContain('Every table matches');
    expect(await summaries({ dir: back })).toEqual(before);
    await withStore({ dir: back }, async (database) => {
      expect(await new ApiKeysService(new ApiKeysRepository(database.db)).authenticate(source.key)).toMatchObject({ admin: true });
    });
    expect(moveLines(home.stdout).length).toBeGreaterThan(0);
  }, LONG);
});

describe.runIf(postgres)('kb backup and kb restore', () => {
  it('backs up PostgreSQL directly and restores into an embedded store; a second restore needs --replace', async () => {
    const source = await filledEmbeddedStore();
    const url = await emptyPostgres();
    expect((await kb(['move', '--to', url], embedded(source.dir))).code).toBe(0);
    const file = join(work, 'pg.kbb');
    const backup = await kb(['backup', file], onPostgres(url));
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/Backed up \d+ rows of 16 tables/);
    expect(readdirSync(work).filter((name) => name.includes('.partial-'))).toEqual([]);

    const dir = join(work, 'restored');
    const restored = await kb(['restore', file], embedded(dir));
    expect(restored.code, restored.stderr).toBe(0);
    expect(await summaries({ dir })).toEqual(await summaries({ url }));

    const refused = await kb(['restore', file], embedded(dir));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The store is not empty');
    expect(refused.stderr).toContain('Nothing was restored');
    const replaced = await kb(['restore', file, '--replace'], embedded(dir));
    expect(replaced.code, replaced.stderr).toBe(0);

    // Another embedder's settings: refused before anything is written.
    const other = await kb(['restore', file], { ...embedded(join(work, 'other-dim')), KB_EMBEDDING_DIM: '256' });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/made by local-lexical-v1-1024 \(1024 dimensions\), but this kb is configured for .+ \(256 dimensions\)/);

    const missing = await kb(['restore', join(work, 'nope.kbb')], embedded(dir));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No backup file at');
  }, LONG);

  it.each(['postgres', 'embedded'] as const)('an interrupted restore into %s leaves the store as it was', async (kind) => {
    const source = await filledEmbeddedStore(40);
    const file = join(work, `interrupt-${kind}.kbb`);
    expect((await kb(['backup', file], embedded(source.dir))).code).toBe(0);
    const target: Storage = kind === 'postgres' ? { url: await emptyPostgres() } : { dir: join(work, `interrupt-${kind}`) };
    // An empty, migrated store to restore into (the embedded one copied from one made once per machine).
    if ('dir' in target) await seedEmbeddedStore(target.dir);
    await withStore(target, (database) => database.migrate());
    const empty = await summaries(target);

    // The restore reads its input from a pipe that delivers the first part of the file and then
    // nothing: it is mid-transaction, rows written, when it is killed.
    const child = spawn(process.execPath, [...entryArgs(ROOT, 'packages/cli/src/main.ts'), 'restore', '-'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...('url' in target ? onPostgres(target.url) : embedded(target.dir)) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.on('data', () => undefined);
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.on('error', () => undefined);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const bytes = readFileSync(file);
    child.stdin.write(bytes.subarray(0, Math.floor(bytes.length * 0.7)));
    if ('url' in target) {
      // Until the restore's connection is loading rows.
      const deadline = Date.now() + 240_000;
      for (;;) {
        const url = target.url;
        const loading = await withStore({ url }, async (database) => {
          const { rows } = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and query ilike 'copy %' and pid <> pg_backend_pid()`.execute(database.db);
          return rows[0]!.n > 0;
        });
        if (loading) break;
        if (Date.now() > deadline) throw new Error(`the restore did not start loading rows: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } else {
      // Until it reports rows loaded, and a moment more.
      const deadline = Date.now() + 240_000;
      while (!/kb restore: /.test(stderr)) {
        if (Date.now() > deadline) throw new Error(`the restore did not start loading rows: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const early = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('running'), 10))]);
    expect(early, `the restore ended before it was interrupted: ${stderr}`).toBe('running');
    child.kill('SIGKILL');
    await exited;
    // PostgreSQL ends the dead client's transaction when it sees the connection close.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const now = await summaries(target).catch(() => undefined);
      if (now && JSON.stringify(now) === JSON.stringify(empty)) break;
      if (Date.now() > deadline) expect(now).toEqual(empty);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }, LONG);
});

describe('kb backup from a running server', () => {
  let tables: TableSummary[] = [];
  it('streams the embedded store of a running server into a file; a stream cut short leaves no file', async () => {
    const source = await filledEmbeddedStore();
    const port = await freePort();
    const server = start('apps/server/src/main.ts', [], { ...embedded(source.dir), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    const url = `http://127.0.0.1:${port}`;
    try {
      const deadline = Date.now() + 240_000;
      for (;;) {
        try {
          if ((await fetch(`${url}/readyz`)).ok) break;
        } catch {
          // starting
        }
        if (Date.now() > deadline) throw new Error('server did not start');
        await new Promise((r) => setTimeout(r, 50));
      }
      // The store belongs to the server: a direct backup is refused and says how instead.
      const locked = await kb(['backup', join(work, 'locked.kbb')], embedded(source.dir));
      expect(locked.code).toBe(2);
      expect(locked.stderr).toContain('--from-url');

      const file = join(work, 'server.kbb');
      // The installed command (compiled when built), as an operator runs it.
      const fetched = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [join(ROOT, 'packages/cli/bin/kb.js'), 'backup', '--from-url', url, '--key', source.key, file], {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', KB_DATA_DIR: join(work, 'unused') },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => (stdout += c));
        child.stderr.on('data', (c) => (stderr += c));
        child.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
      expect(fetched.code, fetched.stderr).toBe(0);
      expect(fetched.stdout).toMatch(/Backed up \d+ rows of 16 tables from http:\/\/127\.0\.0\.1/);
      for await (const event of readBackupEvents(createReadStream(file))) if (event.kind === 'done') tables = event.tables;
      expect(tables.map((t) => t.name)).toContain('chunks');

      const wrongKey = await kb(['backup', '--from-url', url, '--key', `kb_${'A'.repeat(40)}`, join(work, 'refused.kbb')], {});
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stderr).toContain('The server refused the backup (401)');
      expect(existsSync(join(work, 'refused.kbb'))).toBe(false);
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
    // Restored, the store holds what the file holds (the server went on counting the key's
    // requests after it, so the file is the reference, not the store now).
    const dir = join(work, 'from-server');
    expect((await kb(['restore', join(work, 'server.kbb')], embedded(dir))).code).toBe(0);
    expect(await summaries({ dir })).toEqual(tables);

    // A server that sends part of a backup and then drops the connection.
    const bytes = readFileSync(join(work, 'server.kbb'));
    const cut = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
    });
    await new Promise<void>((resolve) => cut.listen(0, '127.0.0.1', resolve));
    try {
      const target = join(work, 'cut.kbb');
      writeFileSync(join(work, 'keep.txt'), 'x');
      const result = await kb(['backup', '--from-url', `http://127.0.0.1:${(cut.address() as { port: number }).port}`, '--key', 'kb_x', target], {});
      expect(result.code).toBe(1);
      expect(existsSync(target)).toBe(false);
      expect(readdirSync(work).filter((name) => name.includes('.partial-'))).toEqual([]);
    } finally {
      cut.close();
    }
  }, LONG);
});
