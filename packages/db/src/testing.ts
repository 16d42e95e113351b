import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import pg from 'pg';
import { createDatabase, DEFAULT_EMBEDDING_DIMENSION, type Database, type DatabaseOptions } from './database.ts';
import { migrationProvider } from './migrations/index.ts';
import { vectorIndexSignature } from './vector-index.ts';

/**
 * Test databases: a fresh, migrated database per call, on either engine.
 * PGlite: a migrated in-memory template is built once per test process and cloned.
 * PostgreSQL: a migrated template database is built once (named after the migrations, so a
 * new migration makes a new template) and each test database is CREATE DATABASE ... TEMPLATE.
 */

export type TestStoreKind = 'pglite' | 'postgres';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let pgliteTemplate: Promise<Blob> | undefined;

/**
 * A migrated embedded database as a data-directory dump, made once per machine and version and
 * kept in the temporary directory: creating a PGlite database (initdb) costs seconds in every
 * test process, loading a dump a fraction of that. The file is named after the migrations, the
 * vector index's definition and the PGlite build, so any change makes a new one.
 */
async function migratedPgliteTemplate(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const file = join(tmpdir(), `kb-pglite-template-${await pgliteTemplateKey()}.tar`);
    try {
      return new Blob([await readFile(file)]);
    } catch {
      // Not made yet on this machine: make it.
    }
    const pglite = await PGlite.create({ extensions: { vector } });
    const database = await createDatabase({ kind: 'pglite-instance', pglite });
    await database.migrate();
    const dump = await pglite.dumpDataDir('none');
    await database.close();
    // Written under a name of its own, then renamed: processes making it at once never read half a file.
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, file);
    return dump;
  })();
  return pgliteTemplate;
}

let storeTemplate: Promise<string> | undefined;

/**
 * Fills `dir` (absent or empty) with a migrated embedded store, as `kb migrate` would leave it,
 * copied from one made once per machine and version (named like the dump above): a process
 * that opens a new store runs initdb first, seconds of every test that starts a server or a CLI
 * command on a store of its own.
 */
export async function seedEmbeddedStore(dir: string): Promise<void> {
  storeTemplate ??= (async () => {
    const template = join(tmpdir(), `kb-store-template-${await pgliteTemplateKey()}`);
    try {
      await stat(join(template, 'PG_VERSION'));
      return template;
    } catch {
      // Not made yet on this machine: make it.
    }
    const partial = `${template}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const database = await createDatabase({ kind: 'pglite', dataDir: partial });
    try {
      await database.migrate();
    } finally {
      await database.close();
    }
    // Another process may have made it meanwhile: theirs is as good.
    await rename(partial, template).catch(() => rm(partial, { recursive: true, force: true }));
    return template;
  })();
  const template = await storeTemplate;
  await mkdir(dir, { recursive: true });
  await cp(template, dir, { recursive: true });
}

async function pgliteTemplateKey(): Promise<string> {
  const names = Object.keys(await migrationProvider({ embeddingDimension: DEFAULT_EMBEDDING_DIMENSION, kind: 'pglite' }).getMigrations());
  const index = vectorIndexSignature('pglite', DEFAULT_EMBEDDING_DIMENSION);
  // The resolved path names PGlite's version (the package store's folder).
  const build = import.meta.resolve('@electric-sql/pglite');
  return createHash('sha256').update([...names, index, build].join(',')).digest('hex').slice(0, 12);
}

async function templateName(): Promise<string> {
  const names = Object.keys(await migrationProvider({ embeddingDimension: DEFAULT_EMBEDDING_DIMENSION, kind: 'postgres' }).getMigrations());
  // The vector index's definition comes from the code, not only from migrations (migrate()
  // rebuilds it when the code defines it otherwise): it names the template too.
  const index = vectorIndexSignature('postgres', DEFAULT_EMBEDDING_DIMENSION);
  return `kb_tpl_${createHash('sha256').update([...names, index].join(',')).digest('hex').slice(0, 12)}`;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let staleDropped: Promise<void> | undefined;

/** Test databases older than this were left by a run that crashed: no run lasts that long. */
const LEFTOVER_AGE_MS = 6 * 3600_000;

/**
 * Drops what earlier runs left behind: test databases of crashed runs, and templates of older
 * migrations (the newest two besides `current` stay, for branches tested side by side). A
 * database in use is skipped.
 */
async function dropStaleDatabases(client: pg.Client, current: string): Promise<void> {
  const { rows } = await client.query<{ datname: string }>(
    `select datname from pg_database where datname like 'kb\\_test\\_%' or (datname like 'kb\\_tpl\\_%' and datname <> $1) order by oid desc`,
    [current],
  );
  const stale: string[] = [];
  let templatesKept = 0;
  for (const { datname } of rows) {
    if (datname.startsWith('kb_tpl_')) {
      if (datname.includes('_building_') || templatesKept++ >= 2) stale.push(datname);
      continue;
    }
    const created = parseInt(datname.split('_')[2] ?? '', 36);
    if (Number.isFinite(created) && Date.now() - created > LEFTOVER_AGE_MS) stale.push(datname);
  }
  for (const name of stale) {
    await client.query(`drop database if exists "${name}"`).catch(() => undefined);
  }
}

async function ensurePostgresTemplate(): Promise<string> {
  const name = await templateName();
  await adminQuery(async (client) => {
    // Serialise template creation across parallel test processes.
    await client.query('select pg_advisory_lock(774411)');
    try {
      const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (exists.rowCount === 0) {
        const building = `${name}_building_${randomBytes(3).toString('hex')}`;
        await client.query(`create database "${building}"`);
        const database = await createDatabase({ kind: 'postgres', databaseUrl: withDatabase(TEST_DATABASE_URL, building), poolSize: 1 });
        try {
          await database.migrate();
        } finally {
          await database.close();
        }
        await client.query(`alter database "${building}" rename to "${name}"`);
      }
      staleDropped ??= dropStaleDatabases(client, name);
      await staleDropped;
    } finally {
      await client.query('select pg_advisory_unlock(774411)');
    }
  });
  return name;
}

export interface TestDatabase {
  database: Database;
  /** Connection URL of a PostgreSQL test database (undefined on PGlite). */
  url?: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(
  kind: TestStoreKind,
  options: Pick<DatabaseOptions, 'bulkLoadMinChunks'> = {},
): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const pglite = await PGlite.create({ extensions: { vector }, loadDataDir: await migratedPgliteTemplate() });
    const database = await createDatabase({ kind: 'pglite-instance', pglite }, options);
    return { database, drop: () => database.close() };
  }
  const template = await ensurePostgresTemplate();
  const name = `kb_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery((client) => client.query(`create database "${name}" template "${template}"`));
  const url = withDatabase(TEST_DATABASE_URL, name);
  const database = await createDatabase({ kind: 'postgres', databaseUrl: url, poolSize: 5 }, options);
  return {
    database,
    url,
    async drop() {
      await database.close();
      await adminQuery((client) => client.query(`drop database if exists "${name}" with (force)`));
    },
  };
}

/** Creates an empty PostgreSQL database (not migrated) and returns its URL and a drop function. */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `kb_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery((client) => client.query(`create database "${name}"`));
  return {
    url: withDatabase(TEST_DATABASE_URL, name),
    drop: () => adminQuery((client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}

let postgresReachable: Promise<boolean> | undefined;

/**
 * Whether the PostgreSQL test server answers. CI must have it: there an unreachable server
 * fails the run instead of skipping the suites that need it.
 */
export function isPostgresAvailable(): Promise<boolean> {
  postgresReachable ??= adminQuery(async () => true).catch((error: unknown) => {
    if (process.env.CI === 'true') {
      throw new Error(`PostgreSQL is required in CI but ${TEST_DATABASE_URL} is unreachable: ${String(error)}`);
    }
    console.warn(`PostgreSQL at ${TEST_DATABASE_URL} is unreachable: its test suites are skipped.`);
    return false;
  });
  return postgresReachable;
}

/** The stores a storage test should run on: always PGlite, and PostgreSQL when it is reachable. */
export async function testStoreKinds(): Promise<TestStoreKind[]> {
  return (await isPostgresAvailable()) ? ['pglite', 'postgres'] : ['pglite'];
}
export { fillEveryTable } from './backup/fixture.ts';
