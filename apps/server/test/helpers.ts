import { loadConfig } from '@kb/config';
import { createLogger, type Logger } from '@kb/core';
import { createTestDatabase, TEST_REDIS_URL, type TestStoreKind } from '@kb/db/testing';
import { startService, type RunningService } from '../src/app.ts';
import { dropRedisKeys, testQueuePrefix } from './processes.ts';

export const ADMIN_PASSWORD = 'test-admin-password-123';

export interface TestService extends RunningService {
  /** Calls the REST API. */
  api(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<Response>;
  /** Creates a key through the service layer (as the CLI does) and returns its secret and id. */
  createKey(options?: { admin?: boolean; rateLimitRpm?: number | null; rateLimitRpd?: number | null; label?: string }): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

export async function startTestService(
  store: TestStoreKind,
  options: { redis?: boolean; env?: Record<string, string>; logger?: Logger; adminDir?: string } = {},
): Promise<TestService> {
  const testDatabase = await createTestDatabase(store);
  const queuePrefix = options.redis ? (options.env?.KB_QUEUE_PREFIX ?? testQueuePrefix()) : undefined;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    KB_ADMIN_PASSWORD: ADMIN_PASSWORD,
    ...(queuePrefix !== undefined ? { REDIS_URL: TEST_REDIS_URL, KB_QUEUE_PREFIX: queuePrefix } : {}),
    ...options.env,
  });
  const service = await startService(config, {
    database: testDatabase.database,
    logger: options.logger ?? createLogger({ level: 'silent' }),
    ...(options.adminDir === undefined ? {} : { adminDir: options.adminDir }),
  });
  return {
    ...service,
    async api(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.key) headers.set('authorization', `Bearer ${init.key}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(`${service.url}${path}`, { ...init, headers, body });
    },
    createKey(opts = {}) {
      return service.services.keys.create({ label: opts.label ?? 'test', ...opts });
    },
    async close() {
      await service.stop(1_000);
      await testDatabase.drop();
      if (queuePrefix !== undefined) await dropRedisKeys(queuePrefix);
    },
  };
}

/** A response's JSON body, untyped: tests assert on its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = (res: Response): Promise<any> => res.json();
