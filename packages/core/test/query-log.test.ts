import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { normalizeQuery, QueryLog } from '../src/insights/query-log.ts';
import { QueryLogRepository } from '../src/insights/query-log.repository.ts';
import { createLogger } from '../src/logger.ts';

const kinds = await testStoreKinds();
const logger = createLogger({ level: 'silent' });
const DAY = 86_400_000;
const KEY = '00000000-0000-4000-8000-00000000000a';

describe('normalizeQuery', () => {
  it('groups repeats that differ in case and spacing only', () => {
    expect(normalizeQuery('  How do I   Configure\tmenus? ')).toBe('how do i configure menus?');
  });
});

describe.each(kinds)('the query log (%s)', (kind) => {
  let testDb: TestDatabase;
  let repository: QueryLogRepository;
  let clock: Date;
  const log = (retentionDays = 30) => new QueryLog(repository, logger, { retentionDays, now: () => clock });
  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    repository = new QueryLogRepository(testDb.database.db);
  });
  afterAll(() => testDb?.drop());
  beforeEach(async () => {
    clock = new Date('2026-11-01T12:00:00Z');
    await testDb.database.db.deleteFrom('query_log').execute();
  });

  it('keeps the first 500 UTF-16 units of a long query, never half a character', async () => {
    const queryLog = log();
    queryLog.record({ kind: 'search', query: `${'a'.repeat(499)}bc${'d'.repeat(5_000)}`, namespaces: null, bestScore: 0.1, apiKeyId: KEY });
    queryLog.record({ kind: 'search', query: `${'e'.repeat(499)}😀${'d'.repeat(5_000)}`, namespaces: null, bestScore: 0.2, apiKeyId: KEY });
    const { gaps } = await queryLog.gaps({});
    expect(gaps.map((gap) => gap.query)).toEqual([`${'a'.repeat(499)}b`, 'e'.repeat(499)]);
  });

  it('turned off, deletes what it recorded while it was on', async () => {
    const on = log();
    on.record({ kind: 'chat', query: 'private question', namespaces: null, bestScore: 0.3, apiKeyId: KEY });
    await on.flush();
    expect(await testDb.database.db.selectFrom('query_log').select('query').execute()).toHaveLength(1);
    const off = log(0);
    off.start();
    await expect.poll(async () => (await testDb.database.db.selectFrom('query_log').select('query').execute()).length).toBe(0);
    off.record({ kind: 'chat', query: 'not kept', namespaces: null, bestScore: 0.3, apiKeyId: KEY });
    await off.flush();
    expect(await testDb.database.db.selectFrom('query_log').select('query').execute()).toHaveLength(0);
  });

  it('lists the weakest queries first, repeats grouped, with counts, namespaces and kinds', async () => {
    const queryLog = log();
    queryLog.record({ kind: 'search', query: 'How do menus work?', namespaces: null, bestScore: 0.8, apiKeyId: KEY });
    queryLog.record({ kind: 'search', query: 'Quantum teleport setup', namespaces: ['user_docs'], bestScore: 0.1, apiKeyId: KEY });
    clock = new Date(clock.getTime() + 60_000);
    queryLog.record({ kind: 'chat', query: 'quantum   TELEPORT setup', namespaces: ['tech_docs', 'api_endpoints'], bestScore: 0.2, apiKeyId: null });
    queryLog.record({ kind: 'search', query: 'zzz nothing', namespaces: null, bestScore: null, apiKeyId: KEY });
    const { gaps, total, take, skip } = await queryLog.gaps({});
    expect({ total, take, skip }).toEqual({ total: 3, take: 50, skip: 0 });
    expect(gaps.map((g) => g.query)).toEqual(['zzz nothing', 'quantum   TELEPORT setup', 'How do menus work?']);
    expect(gaps[1]).toEqual({
      query: 'quantum   TELEPORT setup',
      count: 2,
      bestScore: 0.2,
      meanScore: expect.closeTo(0.15, 10),
      namespaces: ['api_endpoints', 'tech_docs', 'user_docs'],
      kinds: ['chat', 'search'],
      firstAskedAt: '2026-11-01T12:00:00.000Z',
      lastAskedAt: '2026-11-01T12:01:00.000Z',
      thumbsDown: 0,
    });
    expect(gaps[0]).toMatchObject({ count: 1, bestScore: null, meanScore: null, namespaces: [] });

    // Filters and pages.
    expect((await queryLog.gaps({ kind: 'chat' })).gaps.map((g) => g.query)).toEqual(['quantum   TELEPORT setup']);
    expect((await queryLog.gaps({ maxScore: 0.5 })).gaps.map((g) => g.query)).toEqual(['zzz nothing', 'quantum   TELEPORT setup']);
    const page = await queryLog.gaps({ limit: 1, offset: 1 });
    expect(page).toMatchObject({ total: 3, take: 1, skip: 1 });
    expect(page.gaps.map((g) => g.query)).toEqual(['quantum   TELEPORT setup']);
    expect((await queryLog.gaps({ limit: 10_000 })).take).toBe(200);

    // The key's id is kept, never anything else about the caller.
    const rows = await testDb.database.db.selectFrom('query_log').select(['api_key_id', 'kind']).execute();
    expect(new Set(rows.map((r) => r.api_key_id))).toEqual(new Set([KEY, null]));
  });

  it('keeps entries for the retention period: older ones leave the list and the store', async () => {
    const queryLog = log(30);
    queryLog.record({ kind: 'search', query: 'old question', namespaces: null, bestScore: 0.1, apiKeyId: null });
    await queryLog.flush();
    clock = new Date(clock.getTime() + 29 * DAY);
    queryLog.record({ kind: 'search', query: 'recent question', namespaces: null, bestScore: 0.1, apiKeyId: null });
    expect((await queryLog.gaps({})).gaps.map((g) => g.query).sort()).toEqual(['old question', 'recent question']);

    clock = new Date(clock.getTime() + 2 * DAY); // the first is now 31 days old, the second 2
    expect((await queryLog.gaps({})).gaps.map((g) => g.query)).toEqual(['recent question']);
    const stored = await testDb.database.db.selectFrom('query_log').select('query').execute();
    expect(stored.map((r) => r.query)).toEqual(['recent question']);
  });

  it('records nothing when the retention is 0 days', async () => {
    const queryLog = log(0);
    expect(queryLog.enabled).toBe(false);
    queryLog.record({ kind: 'search', query: 'anything', namespaces: null, bestScore: 0.5, apiKeyId: null });
    await queryLog.stop();
    expect(await testDb.database.db.selectFrom('query_log').select('id').execute()).toEqual([]);
    expect(await queryLog.gaps({})).toEqual({ gaps: [], total: 0, take: 50, skip: 0 });
  });

  it('keeps entries the store could not take and writes them on the next flush', async () => {
    let failing = true;
    const flaky = new QueryLogRepository(testDb.database.db);
    const insert = flaky.insert.bind(flaky);
    flaky.insert = async (entries) => {
      if (failing) throw new Error('store unavailable');
      return insert(entries);
    };
    const queryLog = new QueryLog(flaky, logger, { retentionDays: 30, now: () => clock });
    queryLog.record({ kind: 'search', query: 'kept across a failure', namespaces: null, bestScore: 0.3, apiKeyId: null });
    await queryLog.flush();
    expect(await testDb.database.db.selectFrom('query_log').select('id').execute()).toEqual([]);
    failing = false;
    await queryLog.stop();
    expect((await testDb.database.db.selectFrom('query_log').select('query').execute()).map((r) => r.query)).toEqual(['kept across a failure']);
  });
});
