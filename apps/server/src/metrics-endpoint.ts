import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '@kb/config';
import { BullJobQueue, InProcessJobQueue, PrometheusMetrics, useMetrics, type JobQueue, type JobsRepository, type Logger } from '@kb/core';
import type { Database } from '@kb/db';
import { sendError } from './http-errors.ts';

/**
 * The process's metrics when KB_METRICS is on (else null, and every instrumented call stays a
 * no-op): a Prometheus registry fed by the service's events and, at each scrape, by the jobs
 * table, the queue and the store.
 */
export function createProcessMetrics(
  config: Config,
  sources: { database: Database; jobs: JobsRepository; queue: JobQueue },
  process: 'server' | 'worker',
): PrometheusMetrics | null {
  if (!config.telemetry.metrics.enabled) return null;
  const metrics = new PrometheusMetrics({ labels: { process } });
  const { database, jobs, queue } = sources;
  metrics.observeJobs(() => jobs.countByStatus());
  if (queue instanceof BullJobQueue) metrics.observeQueue('bullmq', () => queue.snapshot());
  else if (queue instanceof InProcessJobQueue) metrics.observeQueue('in-process', () => queue.snapshot());
  if (database.stats) metrics.observeStore(() => database.stats!());
  useMetrics(metrics);
  return metrics;
}

/** Whether the request carries `Bearer <token>` (compared in constant time). */
function authorized(req: IncomingMessage, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** GET /metrics: the Prometheus text format, behind the token when there is one. */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse, metrics: PrometheusMetrics, token: string | undefined): Promise<void> {
  if (token !== undefined && !authorized(req, token)) {
    return sendError(res, 'UNAUTHORIZED', 'Metrics need "Authorization: Bearer <KB_METRICS_TOKEN>"', { 'WWW-Authenticate': 'Bearer realm="kb-metrics"' });
  }
  const text = await metrics.scrape();
  res.writeHead(200, { 'Content-Type': metrics.contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : text);
}

export interface MetricsServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** A listener of its own for /metrics (KB_METRICS_PORT, a worker's KB_WORKER_METRICS_PORT) on the interface KB_METRICS_HOST names. */
export async function startMetricsServer(
  metrics: PrometheusMetrics,
  options: { port: number; host: string; token?: string | undefined },
  logger: Logger,
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return sendError(res, 'NOT_FOUND', 'Only GET /metrics is served here');
    serveMetrics(req, res, metrics, options.token).catch((error: unknown) => {
      logger.error({ err: error }, 'metrics scrape failed');
      sendError(res, 'INTERNAL_SERVER_ERROR', 'Internal server error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ port, host: options.host }, 'metrics served at /metrics');
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
