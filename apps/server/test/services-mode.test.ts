import type { ChildProcess } from 'node:child_process';
import { isPostgresAvailable, createEmptyPostgresDatabase, TEST_REDIS_URL } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropRedisKeys, freePort, run, runToEnd, stopAll, testQueuePrefix, waitFor } from './processes.ts';

const available = await isPostgresAvailable();

describe.runIf(available)('services mode: PostgreSQL + Redis, two server processes', () => {
  let database: { url: string; drop(): Promise<void> };
  const servers: ChildProcess[] = [];
  const urls: string[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createEmptyPostgresDatabase();
    env = { DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, KB_QUEUE_PREFIX: testQueuePrefix(), LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
    // The CLI migrates and creates the first admin key, as the README says.
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      servers.push(run(['apps/server/src/main.ts'], { ...env, PORT: String(port) }));
      urls.push(`http://127.0.0.1:${port}`);
    }
    await Promise.all(urls.map((u) => waitFor(`${u}/readyz`)));
  }, 300_000);

  afterAll(async () => {
    await stopAll(servers);
    await database?.drop();
    await dropRedisKeys(env.KB_QUEUE_PREFIX!);
  });

  it('a server that cannot reach Redis says why and exits 1', async () => {
    const result = await runToEnd(['apps/server/src/main.ts'], { ...env, REDIS_URL: 'redis://127.0.0.1:9', PORT: '0' });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain('Cannot reach Redis at REDIS_URL: connect ECONNREFUSED 127.0.0.1:9');
  });

  it('share one key limit across processes, and the CLI writes to the same store', async () => {
    const created = await runToEnd(['packages/cli/src/main.ts', 'keys', 'create', '--label', 'shared', '--admin', '--rpm', '6', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout);
    expect(key).toMatch(/^kb_[0-9A-Za-z]{40}$/);

    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${urls[i % 2]}/api/v1/keys`, { headers: { authorization: `Bearer ${key}` } });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.slice(6).every((s) => s === 429)).toBe(true);
  });

  it('a server stops gracefully on SIGTERM', async () => {
    const server = servers[1]!;
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
