import type { Config } from '@kb/config';
import type { Database } from '@kb/db';
import type { Redis } from 'ioredis';
import { AdminSessions } from './auth/admin-sessions.ts';
import type { Embedder } from './embeddings/types.ts';
import { IngestionService } from './ingestion/ingestion.service.ts';
import { OpenApiIngestion } from './ingestion/openapi-ingestion.ts';
import { UrlIngestion } from './ingestion/url-ingestion.ts';
import { SearchService } from './search/search.service.ts';
import { ApiKeysRepository } from './keys/keys.repository.ts';
import { ApiKeysService } from './keys/keys.service.ts';
import { UsageTracker } from './keys/usage-tracker.ts';
import type { Logger } from './logger.ts';
import { SlidingWindowRateLimiter } from './ratelimit/rate-limiter.ts';

/** Everything the API layer calls, built once per process from the configuration. */
export interface Services {
  config: Config;
  database: Database;
  logger: Logger;
  redis: Redis | null;
  keys: ApiKeysService;
  usage: UsageTracker;
  rateLimiter: SlidingWindowRateLimiter;
  sessions: AdminSessions;
  embedder: Embedder;
  ingestion: IngestionService;
  urlIngestion: UrlIngestion;
  openApiIngestion: OpenApiIngestion;
  search: SearchService;
  /** Flushes buffered writes and stops timers (not the database or Redis: their owner closes them). */
  stop(): Promise<void>;
}

export function createServices(deps: {
  config: Config;
  database: Database;
  logger: Logger;
  redis: Redis | null;
  embedder: Embedder;
}): Services {
  const { config, database, logger, redis, embedder } = deps;
  const keysRepository = new ApiKeysRepository(database.db);
  const usage = new UsageTracker(keysRepository, logger);
  usage.start();
  const ingestion = new IngestionService(database, embedder, logger);
  return {
    config,
    database,
    logger,
    redis,
    keys: new ApiKeysService(keysRepository),
    usage,
    rateLimiter: new SlidingWindowRateLimiter(redis ? { redis } : {}),
    sessions: new AdminSessions(database.db, {
      adminPassword: config.security.adminPassword,
      ttlMs: config.security.sessionTtlMs,
    }),
    embedder,
    ingestion,
    urlIngestion: new UrlIngestion(
      ingestion,
      {
        allowPrivate: config.security.allowPrivateUrls,
        maxBytes: config.limits.maxFetchBytes,
        timeoutMs: config.limits.fetchTimeoutMs,
        maxRedirects: config.limits.maxRedirects,
      },
      logger,
    ),
    openApiIngestion: new OpenApiIngestion(ingestion, logger),
    search: new SearchService(database, embedder, logger),
    async stop() {
      await usage.stop();
    },
  };
}
