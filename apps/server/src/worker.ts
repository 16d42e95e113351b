import type { Config } from '@kb/config';
import { BullJobQueue, createLogger, JobWorker, openStore, useTracing, type Logger, type Store } from '@kb/core';
import type { Database } from '@kb/db';
import { StartupError } from './app.ts';
import { startMetricsServer, type MetricsServer } from './metrics-endpoint.ts';
import { createServices, type Services } from './services.ts';

export interface RunningWorker {
  services: Services;
  worker: JobWorker;
  /** The port of its /metrics (KB_METRICS on), else undefined. */
  metricsPort: number | undefined;
  /** Stops taking jobs, gives the running ones the shutdown grace, hands back what is left. */
  stop(): Promise<void>;
}

/**
 * `pnpm worker`: a services-mode process that runs queued jobs (wiki imports) from Redis against
 * the shared PostgreSQL store. Run any number of them; each takes KB_WORKER_CONCURRENCY jobs at a
 * time. In embedded mode there is no worker: the server runs jobs itself.
 */
export async function startWorker(config: Config, options: { logger?: Logger; database?: Database } = {}): Promise<RunningWorker> {
  const logger = options.logger ?? createLogger({ level: config.server.logLevel });
  const missing = [
    ...(config.redis ? [] : ['REDIS_URL']),
    ...(config.storage.kind === 'postgres' || options.database ? [] : ['DATABASE_URL']),
  ];
  if (missing.length > 0) {
    throw new StartupError(
      `The worker needs ${missing.join(' and ')} (services mode: PostgreSQL and Redis shared with the server). ` +
        'In embedded mode the server runs jobs itself; no worker is needed.',
    );
  }
  useTracing(config.telemetry.tracing !== null);
  let store: Store | undefined;
  let services: Services | undefined;
  let worker: JobWorker | undefined;
  let metricsServer: MetricsServer | undefined;
  try {
    store = await openStore(config, { logger, database: options.database });
    services = createServices({ config, database: store.database, logger, redis: null, embedder: store.embedder, process: 'worker' });
    const producer = services.jobs.queue instanceof BullJobQueue ? services.jobs.queue : undefined;
    worker = new JobWorker(
      services.jobs.runner,
      services.jobs.repository,
      logger,
      {
        redisUrl: config.redis!.url,
        prefix: config.jobs.queuePrefix,
        concurrency: config.jobs.workerConcurrency,
        lockDurationMs: config.jobs.lockMs,
        shutdownGraceMs: config.jobs.shutdownGraceMs,
        onSourceSchedule: async (sourceId) => {
          await services!.sources.syncNow(sourceId, { trigger: 'schedule' });
        },
      },
      producer,
    );
    await worker.start();
    // Schedules live in Redis; one that lost its data gets them back from the store.
    await services.sources.reconcileSchedules();
    if (services.metrics) {
      const { workerPort, host, token } = config.telemetry.metrics;
      metricsServer = await startMetricsServer(services.metrics, { port: workerPort, host, token }, logger);
    }
  } catch (error) {
    await metricsServer?.close().catch(() => undefined);
    await worker?.close().catch(() => undefined);
    await services?.stop().catch(() => undefined);
    await store?.close();
    throw error instanceof StartupError ? error : new StartupError(`The worker could not start: ${(error as Error).message}`, { cause: error });
  }
  logger.info(
    {
      database: store.database.description,
      embedder: `${store.embedder.model} (${store.embedder.dimension} dimensions)`,
      concurrency: config.jobs.workerConcurrency,
      wikiImport: config.wiki.baseUrl ? 'configured' : 'not configured (WIKI_* unset)',
    },
    'job worker running',
  );

  const runningStore = store;
  const runningServices = services;
  const runningWorker = worker;
  const runningMetrics = metricsServer;
  let stopping: Promise<void> | undefined;
  return {
    services: runningServices,
    worker: runningWorker,
    metricsPort: runningMetrics?.port,
    stop() {
      stopping ??= (async () => {
        await runningWorker.close();
        await runningMetrics?.close();
        await runningServices.stop();
        await runningStore.close();
        logger.info('worker stopped');
      })();
      return stopping;
    },
  };
}
