import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { VECTOR_INDEX, type Database } from './index.ts';
import type { DB } from './schema.ts';
import { createTestDatabase, testStoreKinds } from './testing.ts';

const kinds = await testStoreKinds();
const DIM = 1024;

async function hasVectorIndex(db: Kysely<DB>): Promise<boolean> {
  const rows = await sql`select 1 from pg_indexes where tablename = 'chunks' and indexname = ${VECTOR_INDEX}`.execute(db);
  return rows.rows.length > 0;
}

/** Inserts `n` chunks of one document with vectors pointing at distinct pairs of axes. */
async function insertChunks(database: Database, n: number, offset = 0): Promise<void> {
  const db = database.db;
  await db.insertInto('namespaces').values({ id: 'user_docs' }).onConflict((oc) => oc.doNothing()).execute();
  const doc = await db
    .insertInto('documents')
    .values({ namespace: 'user_docs', slug: `d${offset}`, title: 'T', metadata: JSON.stringify({}), content_hash: `h${offset}` })
    .returning('id')
    .executeTakeFirstOrThrow();
  const rows = Array.from({ length: n }, (_, i) => {
    const v = new Array<number>(DIM).fill(0);
    v[(offset + i) % DIM] = 1;
    v[(offset + i * 7 + 3) % DIM] = 0.5;
    return { document_id: doc.id, namespace: 'user_docs', ordinal: i, heading_path: 'T', content: `c${offset + i}`, token_count: 1, embedding: `[${v.join(',')}]` };
  });
  await db.insertInto('chunks').values(rows).execute();
}

async function nearest(database: Database, axis: number): Promise<string[]> {
  const q = new Array<number>(DIM).fill(0);
  q[axis] = 1;
  const distance = database.vectorDistance(DIM, sql.ref('embedding'), `[${q.join(',')}]`);
  const rows = await sql<{ content: string }>`select content from chunks order by ${distance}, content limit 3`.execute(database.db);
  return rows.rows.map((r) => r.content);
}

describe('bulk loads on the embedded store', () => {
  it('set the vector index aside for a large load and build it when the load ends', async () => {
    const { database, drop } = await createTestDatabase('pglite', { bulkLoadMinChunks: 20 });
    try {
      const load = database.bulkLoad();
      await load.expect(10);
      expect(database.vectorIndexDeferred()).toBe(false);
      await load.expect(10);
      expect(database.vectorIndexDeferred()).toBe(true);
      expect(await hasVectorIndex(database.db)).toBe(false);
      await insertChunks(database, 30);
      // Searches read every chunk meanwhile, and find the same nearest ones.
      const during = await nearest(database, 5);
      expect(during[0]).toBe('c5');
      expect(await load.end()).toBe(true);
      expect(database.vectorIndexDeferred()).toBe(false);
      expect(await hasVectorIndex(database.db)).toBe(true);
      expect(await nearest(database, 5)).toEqual(during);
      // Ending twice builds nothing more.
      expect(await load.end()).toBe(false);
    } finally {
      await drop();
    }
  });

  it('keep the index for a load smaller than the minimum or than the store', async () => {
    const { database, drop } = await createTestDatabase('pglite', { bulkLoadMinChunks: 20 });
    try {
      const small = database.bulkLoad();
      await small.expect(19);
      expect(await small.end()).toBe(false);
      await insertChunks(database, 50);
      const smallerThanStore = database.bulkLoad();
      await smallerThanStore.expect(40);
      expect(database.vectorIndexDeferred()).toBe(false);
      expect(await smallerThanStore.end()).toBe(false);
      expect(await hasVectorIndex(database.db)).toBe(true);
    } finally {
      await drop();
    }
  });

  it('set the index aside once a load has expected as many chunks as the store held', async () => {
    const { database, drop } = await createTestDatabase('pglite', { bulkLoadMinChunks: 20 });
    try {
      await insertChunks(database, 50);
      const load = database.bulkLoad();
      await load.expect(40);
      expect(database.vectorIndexDeferred()).toBe(false);
      // The load's own writes do not raise the bar: the store is measured once.
      await insertChunks(database, 40, 50);
      await load.expect(10);
      expect(database.vectorIndexDeferred()).toBe(true);
      expect(await load.end()).toBe(true);
      expect(await hasVectorIndex(database.db)).toBe(true);
    } finally {
      await drop();
    }
  });

  it('build the index once, when the last of overlapping loads ends', async () => {
    const { database, drop } = await createTestDatabase('pglite', { bulkLoadMinChunks: 20 });
    try {
      const first = database.bulkLoad();
      const second = database.bulkLoad();
      const small = database.bulkLoad();
      await first.expect(25);
      await second.expect(25);
      await small.expect(1);
      expect(await hasVectorIndex(database.db)).toBe(false);
      await insertChunks(database, 25);
      // A load that did not set the index aside does not build it, nor does the first to end.
      expect(await small.end()).toBe(false);
      expect(await first.end()).toBe(false);
      expect(await hasVectorIndex(database.db)).toBe(false);
      expect(await second.end()).toBe(true);
      expect(await hasVectorIndex(database.db)).toBe(true);
    } finally {
      await drop();
    }
  });
});

describe('bulk loads that decide for themselves, on the embedded store', () => {
  it('set the index aside when their measure says so, whatever they expect, and build it at the end', async () => {
    const { database, drop } = await createTestDatabase('pglite', { bulkLoadMinChunks: 20 });
    try {
      await insertChunks(database, 50);
      const declined = database.bulkLoad();
      expect(await declined.setIndexAside(async () => false)).toBe(false);
      expect(await hasVectorIndex(database.db)).toBe(true);
      expect(await declined.end()).toBe(false);

      const load = database.bulkLoad();
      expect(await load.setIndexAside(async () => true)).toBe(true);
      expect(database.vectorIndexDeferred()).toBe(true);
      expect(await hasVectorIndex(database.db)).toBe(false);
      // Asked again, the load already holds it (its measure is not asked twice).
      expect(await load.setIndexAside(async () => expect.unreachable('asked twice'))).toBe(true);
      await insertChunks(database, 5, 50);
      expect(await load.end()).toBe(true);
      expect(await hasVectorIndex(database.db)).toBe(true);
      expect(await load.setIndexAside()).toBe(false);
      expect(await hasVectorIndex(database.db)).toBe(true);
    } finally {
      await drop();
    }
  });

  it('write in small transactions while serving, larger ones while the index is aside', async () => {
    const { database, drop } = await createTestDatabase('pglite');
    try {
      expect(database.servingWriteChunks()).toBe(16);
      expect(database.vectorRowsPerStatement).toBe(128);
      const load = database.bulkLoad();
      await load.setIndexAside();
      expect(database.servingWriteChunks()).toBe(128);
      await load.end();
      expect(database.servingWriteChunks()).toBe(16);
    } finally {
      await drop();
    }
  });
});

describe.runIf(kinds.includes('postgres'))('bulk loads on postgres', () => {
  it('never set the index of a shared store aside, nor bound their writes', async () => {
    const { database, drop } = await createTestDatabase('postgres', { bulkLoadMinChunks: 20 });
    try {
      const load = database.bulkLoad();
      await load.expect(1_000_000);
      expect(database.vectorIndexDeferred()).toBe(false);
      expect(await hasVectorIndex(database.db)).toBe(true);
      expect(await load.setIndexAside(async () => expect.unreachable('a shared store is never asked'))).toBe(false);
      expect(await hasVectorIndex(database.db)).toBe(true);
      expect(database.servingWriteChunks()).toBe(Number.POSITIVE_INFINITY);
      expect(database.vectorRowsPerStatement).toBe(Number.POSITIVE_INFINITY);
      expect(await load.end()).toBe(false);
    } finally {
      await drop();
    }
  });
});
