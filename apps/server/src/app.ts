import type { AddressInfo } from 'node:net';
import type { Config } from '@kb/config';
import { collectStartupGarbage } from '@kb/content';
import { createLogger, openStore, REDIS_COMMAND_TIMEOUT_MS, useTracing, type Logger } from '@kb/core';
import type { Database } from '@kb/db';
import { Redis } from 'ioredis';
import { createHttpApp } from './http.ts';
import { startMetricsServer, type MetricsServer } from './metrics-endpoint.ts';
import { createServices, type Services } from './services.ts';

export interface RunningService {
  url: string;
  port: number;
  services: Services;
  /** The port of /metrics when it has one of its own (KB_METRICS_PORT). */
  metricsPort?: number;
  /** Stops taking requests, lets running ones finish (up to graceMs), then releases everything. */
  stop(graceMs?: number): Promise<void>;
}

export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    // Requests fail fast while Redis is away instead of queueing without bound.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // ...and a Redis that accepts connections but does not answer fails them too.
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  // The connection's own error (ECONNREFUSED, a DNS failure) says more than the failed
  // command's "Connection is closed.": it is the reason given if Redis cannot be reached.
  let connectionError: Error | undefined;
  redis.on('error', (error) => {
    connectionError = error;
    logger.warn({ err: error }, 'redis connection error');
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    const reason = connectionError ?? (error as Error);
    throw new StartupError(`Cannot reach Redis at REDIS_URL: ${reason.message}`, { cause: error });
  }
  return redis;
}

/**
 * The composition root: configuration -> database (migrated) -> Redis -> services -> HTTP.
 * `database` may be passed in (tests hand over a prepared one; it is then not closed here).
 */
export interface StartOptions {
  logger?: Logger;
  database?: Database;
  adminDir?: string;
  /**
   * Given, and the store has never held a key: an admin key is made at the first start and handed
   * here (its secret, once), so that a new user can call the API without stopping the server.
   */
  onFirstAdminKey?: (key: string) => void;
}

export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger({ level: config.server.logLevel });
  const metricsSettings = config.telemetry.metrics;
  // On the API's port, /metrics is for Prometheus alone: a token, or a port of its own.
  if (metricsSettings.enabled && metricsSettings.token === undefined && metricsSettings.port === undefined) {
    throw new StartupError('KB_METRICS needs KB_METRICS_TOKEN (metrics served on the API port) or KB_METRICS_PORT (a port of their own)');
  }
  // Spans are made when an OTLP endpoint is set (the entry point installed the SDK for it).
  useTracing(config.telemetry.tracing !== null);
  const store = await openStore(config, { logger, database: options.database });
  const { database, embedder } = store;
  let redis: Redis | null = null;
  try {
    if (config.redis) redis = await connectRedis(config.redis.url, logger);
  } catch (error) {
    await store.close();
    throw error;
  }

  const services = createServices({ config, database, logger, redis, embedder });
  const app = createHttpApp(services, options.adminDir === undefined ? {} : { adminDir: options.adminDir });
  await new Promise<void>((resolve, reject) => {
    app.server.once('error', reject);
    app.server.listen(config.server.port, config.server.host, () => {
      app.server.off('error', reject);
      resolve();
    });
  });
  let metricsServer: MetricsServer | undefined;
  if (services.metrics && metricsSettings.port !== undefined) {
    metricsServer = await startMetricsServer(services.metrics, { port: metricsSettings.port, host: metricsSettings.host, token: metricsSettings.token }, logger);
  }
  await services.start();
  if (options.onFirstAdminKey) {
    const first = await services.keys.issueFirstAdminKey();
    if (first) {
      logger.info({ keyId: first.id }, 'first admin key made for this new store (its secret is shown once, on the terminal)');
      options.onFirstAdminKey(first.key);
    }
  }
  collectStartupGarbage();
  const { port } = app.server.address() as AddressInfo;
  const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;
  logger.info(
    {
      port,
      database: database.description,
      embedder: `${embedder.model} (${embedder.dimension} dimensions)${config.embedding.voyageApiKey ? '' : ': built-in, lexical; set VOYAGE_API_KEY for semantic embeddings'}`,
      rateLimitCounters: redis ? 'redis' : 'memory',
      jobs: services.jobs.queue.kind === 'bullmq' ? 'BullMQ on Redis (run `pnpm worker`)' : 'in-process',
      answerer:
        services.answers.answerer.kind === 'claude'
          ? `Claude (${config.llm.model})`
          : 'built-in extractive; set ANTHROPIC_API_KEY for answers written by Claude',
      adminLogin: services.sessions.enabled ? 'enabled' : 'disabled (set KB_ADMIN_PASSWORD)',
      metrics: !metricsSettings.enabled ? 'off (set KB_METRICS)' : metricsServer ? `on, port ${metricsServer.port}` : 'on, /metrics of this port (bearer token)',
      // The collector's origin only: no path, query or credentials.
      tracing: config.telemetry.tracing ? `on, to ${new URL(config.telemetry.tracing.endpoint).origin}` : 'off',
    },
    'knowledge base service listening',
  );

  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    services,
    ...(metricsServer ? { metricsPort: metricsServer.port } : {}),
    stop(graceMs = 10_000) {
      stopping ??= (async () => {
        app.beginShutdown();
        const closed = new Promise<void>((resolve) => app.server.close(() => resolve()));
        app.server.closeIdleConnections();
        const timer = setTimeout(() => app.server.closeAllConnections(), graceMs);
        await closed;
        clearTimeout(timer);
        await metricsServer?.close();
        await services.stop();
        if (redis) await redis.quit().catch(() => redis?.disconnect());
        await store.close();
        logger.info('stopped');
      })();
      return stopping;
    },
  };
}
