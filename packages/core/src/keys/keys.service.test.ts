import { createTestDatabase, type TestDatabase } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiKeysRepository } from './keys.repository.ts';
import { ApiKeysService, VERIFIED_KEY_TTL_MS } from './keys.service.ts';

describe('ApiKeysService.authenticate: verified keys remembered briefly', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase('pglite');
  });
  afterAll(async () => {
    await testDb.drop();
  });

  /** A service whose repository counts its lookups, on a clock the test moves. */
  function service() {
    const repository = new ApiKeysRepository(testDb.database.db);
    const lookups = vi.spyOn(repository, 'findByHash');
    const clock = { now: 1_000_000 };
    return { keys: new ApiKeysService(repository, { now: () => clock.now }), lookups, clock };
  }

  it('reads the store once per key within the time, and again after it', async () => {
    const { keys, lookups, clock } = service();
    const created = await keys.create({ label: 'remembered' });
    expect((await keys.authenticate(created.key))?.id).toBe(created.id);
    expect((await keys.authenticate(created.key))?.id).toBe(created.id);
    expect(lookups).toHaveBeenCalledTimes(1);
    clock.now += VERIFIED_KEY_TTL_MS;
    expect((await keys.authenticate(created.key))?.id).toBe(created.id);
    expect(lookups).toHaveBeenCalledTimes(2);
  });

  it('never remembers an unknown secret', async () => {
    const { keys, lookups } = service();
    const unknown = `kb_${'x'.repeat(40)}`;
    expect(await keys.authenticate(unknown)).toBeNull();
    expect(await keys.authenticate(unknown)).toBeNull();
    expect(lookups).toHaveBeenCalledTimes(2);
  });

  it('a revocation through this service takes effect at once', async () => {
    const { keys } = service();
    const created = await keys.create({ label: 'revoked here' });
    expect(await keys.authenticate(created.key)).not.toBeNull();
    await keys.revoke(created.id);
    expect(await keys.authenticate(created.key)).toBeNull();
  });

  it("another process's revocation takes effect once the time has passed", async () => {
    const here = service();
    const elsewhere = new ApiKeysService(new ApiKeysRepository(testDb.database.db));
    const created = await here.keys.create({ label: 'revoked elsewhere' });
    expect(await here.keys.authenticate(created.key)).not.toBeNull();
    await elsewhere.revoke(created.id);
    here.clock.now += VERIFIED_KEY_TTL_MS - 1;
    expect(await here.keys.authenticate(created.key)).not.toBeNull();
    here.clock.now += 1;
    expect(await here.keys.authenticate(created.key)).toBeNull();
    // Once refused, it is refused on every call.
    expect(await here.keys.authenticate(created.key)).toBeNull();
  });
});
