/**
 * Services mode: jobs travel through a BullMQ queue on Redis to `pnpm worker` processes, any
 * number of them. The queue entry carries only the job's id (its BullMQ job id is the same), so
 * adding a job twice is a no-op and the payload is always read, and re-validated, from the jobs
 * table.
 */
import { Queue, Worker, WaitingError, type Job } from 'bullmq';
import type { Logger } from '../logger.ts';
import { traceCarrier, withTraceCarrier } from '../telemetry/tracing.ts';
import type { JobType } from './catalog.ts';
import type { JobRunner } from './job-runner.ts';
import type { JobsRepository } from './jobs.repository.ts';
import { SOURCE_SCHEDULE_ENTRY } from '../sources/schedulers.ts';
import { JOB_ATTEMPTS, JOB_BACKOFF_MS, retryDelayMs, ShutdownError, type JobQueue } from './queue.ts';

export const JOB_QUEUE_NAME = 'kb-jobs';

export interface QueueEntryData {
  jobId: string;
  /** The request that started the job, for its log lines. */
  requestId?: string;
  /** The trace context of that request (W3C traceparent/tracestate), when tracing is on. */
  trace?: Record<string, string>;
  /** A source schedule's tick (entry name `source-schedule`): the source to sync. */
  sourceId?: string;
}

export interface BullConnection {
  redisUrl: string;
  /** Key prefix in Redis (default "bull"); tests use their own. */
  prefix?: string;
}

export interface BullQueueOptions extends BullConnection {
  attempts?: number;
  backoffMs?: number;
}

/**
 * How long a request-path Redis command may take before it fails (a Redis that accepts
 * connections but does not answer would otherwise hold the request forever).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

function connection(redisUrl: string, worker: boolean) {
  // Connection options, not a client: BullMQ then owns and closes its connections. Workers block
  // on Redis and must not give up on a command (maxRetriesPerRequest null, no command timeout);
  // the API's producer side fails fast instead, so a request gets a 503 rather than no answer.
  return worker
    ? { url: redisUrl, maxRetriesPerRequest: null }
    : { url: redisUrl, maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: REDIS_COMMAND_TIMEOUT_MS };
}

/** The request's trace context for a queue entry, when tracing is on. */
function withTrace(): { trace?: Record<string, string> } {
  const trace = traceCarrier();
  return trace ? { trace } : {};
}

/** The producer side, used by the API to hand jobs to workers. */
export class BullJobQueue implements JobQueue {
  readonly kind = 'bullmq';
  readonly queue: Queue<QueueEntryData>;
  private readonly attempts: number;
  private readonly backoffMs: number;

  constructor(options: BullQueueOptions) {
    this.queue = new Queue<QueueEntryData>(JOB_QUEUE_NAME, {
      connection: connection(options.redisUrl, false),
      ...(options.prefix ? { prefix: options.prefix } : {}),
    });
    this.attempts = Math.max(1, options.attempts ?? JOB_ATTEMPTS);
    this.backoffMs = Math.max(0, options.backoffMs ?? JOB_BACKOFF_MS);
    // Connection errors surface on the calls that need Redis; without a listener they would be
    // reported as unhandled 'error' events.
    this.queue.on('error', () => undefined);
  }

  async enqueue(job: { id: string; type: JobType; requestId?: string | undefined }): Promise<void> {
    await this.queue.add(
      job.type,
      { jobId: job.id, ...(job.requestId === undefined ? {} : { requestId: job.requestId }), ...withTrace() },
      {
        jobId: job.id,
        attempts: this.attempts,
        backoff: { type: 'exponential', delay: this.backoffMs },
        removeOnComplete: { age: 7 * 24 * 3600, count: 1_000 },
        removeOnFail: { age: 30 * 24 * 3600, count: 5_000 },
      },
    );
  }

  /** Entries by state, and how long the oldest waiting one has waited (metrics). */
  async snapshot(): Promise<{ waiting: number; delayed: number; active: number; oldestWaitingMs: number | null }> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    const [oldest] = await this.queue.getWaiting(0, 0); // ascending: the oldest first
    return {
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      delayed: counts.delayed ?? 0,
      active: counts.active ?? 0,
      oldestWaitingMs: oldest ? Math.max(0, Date.now() - oldest.timestamp) : null,
    };
  }

  /** The BullMQ state of a job's queue entry, or undefined when there is none. */
  async entryState(jobId: string): Promise<{ state: string; failedReason?: string } | undefined> {
    const entry = await this.queue.getJob(jobId);
    if (!entry) return undefined;
    const state = await entry.getState();
    return { state, ...(entry.failedReason ? { failedReason: entry.failedReason } : {}) };
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

export interface JobWorkerOptions extends BullQueueOptions {
  /** Jobs run at once by this process (default 1). */
  concurrency?: number;
  /** How long a job's lock lives without renewal; a killed worker's job is picked up after it. */
  lockDurationMs?: number;
  /** On shutdown, how long the job in progress may take to finish before it is handed back. */
  shutdownGraceMs?: number;
  /** How often unfinished jobs are checked against the queue (default 60 s). */
  reconcileIntervalMs?: number;
  /** Turns a source schedule's tick into a sync job (the source's own rules decide whether one starts). */
  onSourceSchedule?: (sourceId: string) => Promise<void>;
}

/**
 * A worker process's consumer: runs queued jobs through the JobRunner. Shutdown stops taking jobs,
 * gives the running one `shutdownGraceMs` to finish, then aborts it and hands it back to the queue
 * for another worker. A worker that dies without shutting down (SIGKILL, power loss) stops
 * renewing its lock; BullMQ then returns the job to the queue and another worker runs it again.
 */
export class JobWorker {
  private worker: Worker<QueueEntryData> | undefined;
  private readonly producer: BullJobQueue;
  private readonly ownsProducer: boolean;
  private reconcileTimer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private readonly attempts: number;

  /** @param producer the process's queue producer, when it has one (else the worker makes its own). */
  constructor(
    private readonly runner: JobRunner,
    private readonly jobs: JobsRepository,
    private readonly logger: Logger,
    private readonly options: JobWorkerOptions,
    producer?: BullJobQueue,
  ) {
    this.ownsProducer = !producer;
    this.producer = producer ?? new BullJobQueue(options);
    this.attempts = Math.max(1, options.attempts ?? JOB_ATTEMPTS);
  }

  async start(): Promise<void> {
    await this.reconcile();
    const lockDuration = this.options.lockDurationMs ?? 30_000;
    this.worker = new Worker<QueueEntryData>(JOB_QUEUE_NAME, (job, token, signal) => this.process(job, token, signal), {
      connection: connection(this.options.redisUrl, true),
      ...(this.options.prefix ? { prefix: this.options.prefix } : {}),
      concurrency: Math.max(1, this.options.concurrency ?? 1),
      lockDuration,
      stalledInterval: Math.max(1_000, Math.floor(lockDuration / 2)),
      // A job is idempotent: a worker dying under it several times is no reason to give up on it.
      maxStalledCount: 5,
    });
    this.worker.on('error', (error) => this.logger.error({ err: error }, 'job worker error'));
    this.worker.on('stalled', (jobId) => this.logger.warn({ jobId }, 'job stalled (its worker stopped); queued again'));
    const interval = this.options.reconcileIntervalMs ?? 60_000;
    this.reconcileTimer = setInterval(() => {
      this.reconcile().catch((error: unknown) => this.logger.warn({ err: error }, 'job reconciliation failed'));
    }, interval);
    this.reconcileTimer.unref();
    await this.worker.waitUntilReady();
    // A Redis that comes back may have lost its data (restarted without persistence, failed
    // over): reconcile at once rather than at the next interval, so no accepted job waits long.
    const client = await this.worker.getBackend().client;
    client.on('ready', () => {
      if (this.stopping) return;
      this.logger.info('connection to Redis restored; reconciling jobs with the queue');
      this.reconcile().catch((error: unknown) => this.logger.warn({ err: error }, 'job reconciliation failed'));
    });
  }

  private async process(entry: Job<QueueEntryData>, token: string | undefined, signal: AbortSignal | undefined): Promise<string> {
    if (entry.name === SOURCE_SCHEDULE_ENTRY) {
      const sourceId = entry.data?.sourceId;
      if (typeof sourceId === 'string' && this.options.onSourceSchedule) await this.options.onSourceSchedule(sourceId);
      return 'scheduled';
    }
    const jobId = typeof entry.data?.jobId === 'string' ? entry.data.jobId : entry.id;
    if (!jobId) return 'ignored';
    const controller = new AbortController();
    const abort = () => controller.abort(new ShutdownError());
    signal?.addEventListener('abort', abort, { once: true });
    try {
      const maxAttempts = entry.opts.attempts ?? this.attempts;
      const backoff = entry.opts.backoff;
      const backoffMs = typeof backoff === 'number' ? backoff : (backoff?.delay ?? this.options.backoffMs ?? JOB_BACKOFF_MS);
      const requestId = typeof entry.data?.requestId === 'string' ? entry.data.requestId : undefined;
      const outcome = await withTraceCarrier(entry.data?.trace, () =>
        this.runner.run(jobId, {
          signal: controller.signal,
          finalAttempt: entry.attemptsMade + 1 >= maxAttempts,
          maxAttempts,
          retryDelayMs: retryDelayMs(backoffMs, entry.attemptsMade + 1),
          requestId,
        }),
      );
      if (outcome.kind === 'retry') throw new Error(outcome.error);
      if (outcome.kind === 'handed-back') {
        await entry.moveToWait(token);
        throw new WaitingError();
      }
      return outcome.kind;
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }

  /**
   * Brings the jobs table and the queue together: an unfinished job with no queue entry (its
   * server stopped between recording and queueing it, or Redis lost its data) is queued again;
   * one whose entry BullMQ failed is marked failed.
   */
  async reconcile(): Promise<void> {
    for (const job of await this.jobs.listUnfinished()) {
      const state = await this.producer.entryState(job.id);
      if (!state) {
        if (Date.now() - job.created_at.getTime() < 10_000) continue; // its server may be queueing it now
        await this.producer.enqueue({ id: job.id, type: job.type as JobType });
        this.logger.info({ jobId: job.id }, 'unfinished job without a queue entry queued again');
      } else if (state.state === 'failed') {
        await this.jobs.fail(job.id, this.runner.describe(new Error(state.failedReason ?? 'The job failed in the queue')));
      }
    }
  }

  /** Graceful stop; safe to call more than once. */
  close(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    const worker = this.worker;
    if (worker) {
      const closing = worker.close();
      const grace = this.options.shutdownGraceMs ?? 10_000;
      const timer = setTimeout(() => worker.cancelAllJobs('shutdown'), grace);
      timer.unref();
      try {
        await closing;
      } finally {
        clearTimeout(timer);
      }
    }
    if (this.ownsProducer) await this.producer.close();
  }
}
