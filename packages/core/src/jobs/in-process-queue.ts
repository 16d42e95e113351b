import type { Logger } from '../logger.ts';
import { traceCarrier, withTraceCarrier } from '../telemetry/tracing.ts';
import type { JobType } from './catalog.ts';
import type { JobRunner } from './job-runner.ts';
import type { JobsRepository } from './jobs.repository.ts';
import { JOB_ATTEMPTS, JOB_BACKOFF_MS, retryDelayMs, ShutdownError, type JobQueue } from './queue.ts';

export interface InProcessQueueOptions {
  attempts?: number;
  /** Delay before the second attempt, doubled before each further one. */
  backoffMs?: number;
}

interface Entry {
  id: string;
  attempt: number;
  requestId?: string | undefined;
  /** The trace context of the request that started it. */
  trace?: Record<string, string> | undefined;
  /** When it joined the waiting line (Date.now()). */
  since: number;
}

/**
 * Embedded mode's job runner: the same handlers as the workers, run in the server process one
 * job at a time, in the order they were created. Jobs live in the jobs table, so nothing is lost
 * when the process stops: at start, pending jobs and jobs a crash left running are run again.
 */
export class InProcessJobQueue implements JobQueue {
  readonly kind = 'in-process';
  private readonly waiting: Entry[] = [];
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly attempts: number;
  private readonly backoffMs: number;
  private current: { controller: AbortController; done: Promise<void> } | undefined;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly runner: JobRunner,
    private readonly jobs: JobsRepository,
    private readonly logger: Logger,
    options: InProcessQueueOptions = {},
  ) {
    this.attempts = Math.max(1, options.attempts ?? JOB_ATTEMPTS);
    this.backoffMs = Math.max(0, options.backoffMs ?? JOB_BACKOFF_MS);
  }

  /** Queues the jobs an earlier process left unfinished, then starts running. */
  async start(): Promise<void> {
    const unfinished = await this.jobs.listUnfinished();
    for (const job of unfinished) this.push({ id: job.id, attempt: 1, since: Date.now() });
    if (unfinished.length > 0) this.logger.info({ jobs: unfinished.length }, 'resuming unfinished jobs');
    this.pump();
  }

  enqueue(job: { id: string; type: JobType; requestId?: string | undefined }): Promise<void> {
    if (this.closed) return Promise.reject(new ShutdownError());
    this.push({ id: job.id, attempt: 1, requestId: job.requestId, trace: traceCarrier(), since: Date.now() });
    this.pump();
    return Promise.resolve();
  }

  /** Entries by state, and how long the oldest waiting one has waited (metrics). */
  snapshot(): { waiting: number; delayed: number; active: number; oldestWaitingMs: number | null } {
    const oldest = this.waiting.reduce<number | null>((min, e) => (min === null || e.since < min ? e.since : min), null);
    return {
      waiting: this.waiting.length,
      delayed: this.retryTimers.size,
      active: this.current ? 1 : 0,
      oldestWaitingMs: oldest === null ? null : Date.now() - oldest,
    };
  }

  /** Resolves once no job is running or waiting (retries scheduled for later do not count). */
  whenIdle(): Promise<void> {
    if (!this.current && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    this.waiting.length = 0;
    const current = this.current;
    if (current) {
      current.controller.abort(new ShutdownError());
      await current.done;
    }
    this.notifyIdle();
  }

  private push(entry: Entry): void {
    if (this.waiting.some((e) => e.id === entry.id)) return;
    this.waiting.push(entry);
  }

  private pump(): void {
    if (this.closed || this.current) return;
    const entry = this.waiting.shift();
    if (!entry) {
      this.notifyIdle();
      return;
    }
    const controller = new AbortController();
    const done = this.runOne(entry, controller.signal).finally(() => {
      this.current = undefined;
      this.pump();
    });
    this.current = { controller, done };
  }

  private async runOne(entry: Entry, signal: AbortSignal): Promise<void> {
    try {
      const outcome = await withTraceCarrier(entry.trace, () =>
        this.runner.run(entry.id, {
          signal,
          finalAttempt: entry.attempt >= this.attempts,
          maxAttempts: this.attempts,
          retryDelayMs: retryDelayMs(this.backoffMs, entry.attempt),
          requestId: entry.requestId,
        }),
      );
      if (outcome.kind === 'retry') this.retryLater({ ...entry, attempt: entry.attempt + 1 });
    } catch (error) {
      // The runner could not record the outcome (the database is unavailable): try again later.
      if (signal.aborted) return;
      this.logger.error({ err: error, jobId: entry.id }, 'job could not be run; retrying later');
      if (entry.attempt < this.attempts) this.retryLater({ ...entry, attempt: entry.attempt + 1 });
    }
  }

  private retryLater(entry: Entry): void {
    if (this.closed) return;
    const delay = retryDelayMs(this.backoffMs, entry.attempt - 1);
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      if (this.closed) return;
      this.push({ ...entry, since: Date.now() });
      this.pump();
    }, delay);
    timer.unref();
    this.retryTimers.add(timer);
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
