import { storeFailureOf, type JobProgress } from '@kb/db';
import type { Logger } from '../logger.ts';
import { InvalidJobPayloadError, isJobType, parseJobPayload, type JobPayload, type JobType } from './catalog.ts';
import { EMPTY_PROGRESS, type JobsRepository } from './jobs.repository.ts';

export interface JobContext<T extends JobType> {
  jobId: string;
  payload: JobPayload<T>;
  /** Aborted when the process shuts down: stop soon; the job is handed back and resumes later. */
  signal: AbortSignal;
  logger: Logger;
  /** Reports progress; stored at most every PROGRESS_INTERVAL_MS (the final figures always are). */
  progress(progress: JobProgress): void;
}

/**
 * Runs one attempt of a job and returns its final progress. Throwing ends the attempt: an error
 * with `transient: true` (an upstream outage) is retried with backoff while attempts remain,
 * anything else fails the job. Handlers must be idempotent: a retried, resumed or redelivered
 * job runs again from the start, and must converge on the same result.
 */
export type JobHandler<T extends JobType> = (context: JobContext<T>) => Promise<JobProgress>;
export type JobHandlers = { [T in JobType]: JobHandler<T> };

export type JobOutcome =
  | { kind: 'done'; progress: JobProgress }
  | { kind: 'failed'; error: string }
  /** A transient failure, not the last attempt: run it again after a backoff. */
  | { kind: 'retry'; error: string }
  /** Stopped by shutdown; the job is pending again. */
  | { kind: 'handed-back' }
  /** Nothing to run: unknown id, or already finished (a redelivered queue entry). */
  | { kind: 'ignored' };

export const PROGRESS_INTERVAL_MS = 500;
const MAX_ERROR_LENGTH = 1_000;

/** An upstream outage (marked `transient` by its client), or the store out of reach or out of space. */
export function isTransientError(error: unknown): boolean {
  if (storeFailureOf(error) !== undefined) return true;
  return typeof error === 'object' && error !== null && (error as { transient?: unknown }).transient === true;
}

/**
 * Executes jobs recorded in the jobs table, whichever queue delivers them: validates the stored
 * payload against the catalog, keeps status, attempts and progress up to date, and turns the
 * handler's result into the job's final state. Error messages are stored with every configured
 * secret removed.
 */
export class JobRunner {
  private readonly secrets: string[];

  constructor(
    private readonly jobs: JobsRepository,
    private readonly handlers: Partial<JobHandlers>,
    private readonly logger: Logger,
    options: { secrets?: ReadonlyArray<string | undefined> } = {},
  ) {
    this.secrets = (options.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 4);
  }

  async run(jobId: string, options: { signal: AbortSignal; finalAttempt: boolean }): Promise<JobOutcome> {
    const { signal, finalAttempt } = options;
    const existing = await this.jobs.get(jobId);
    if (!existing || existing.status === 'done' || existing.status === 'failed') {
      this.logger.info({ jobId, status: existing?.status ?? 'missing' }, 'job not run: unknown or already finished');
      return { kind: 'ignored' };
    }
    const type = existing.type;
    const handler = isJobType(type) ? this.handlers[type] : undefined;
    if (!isJobType(type) || !handler) {
      const error = `Unknown job type ${JSON.stringify(type.slice(0, 50))}`;
      await this.jobs.fail(jobId, error);
      return { kind: 'failed', error };
    }
    let payload: JobPayload;
    try {
      payload = parseJobPayload(type, existing.payload);
    } catch (error) {
      const message = error instanceof InvalidJobPayloadError ? error.message : 'Invalid job payload';
      await this.jobs.fail(jobId, message);
      return { kind: 'failed', error: message };
    }
    if (signal.aborted) return { kind: 'handed-back' };
    const job = await this.jobs.start(jobId);
    if (!job) return { kind: 'ignored' };

    const log = this.logger.child({ jobId, jobType: type, attempt: job.attempts });
    log.info({ payload }, 'job started');
    const reporter = new ProgressReporter(this.jobs, jobId, log, { ...EMPTY_PROGRESS, ...job.progress });
    const started = performance.now();
    try {
      const progress = await (handler as JobHandler<JobType>)({
        jobId,
        payload,
        signal,
        logger: log,
        progress: (p) => reporter.report(p),
      });
      await reporter.settle();
      await this.jobs.finish(jobId, progress);
      log.info({ progress, ms: Math.round(performance.now() - started) }, 'job done');
      return { kind: 'done', progress };
    } catch (error) {
      await reporter.settle();
      if (signal.aborted) {
        await this.jobs.requeue(jobId, reporter.latest);
        log.info({ progress: reporter.latest }, 'job handed back at shutdown');
        return { kind: 'handed-back' };
      }
      const message = this.describe(error);
      if (isTransientError(error) && !finalAttempt) {
        await this.jobs.requeue(jobId, reporter.latest);
        log.warn({ err: error }, 'job attempt failed; it will be retried');
        return { kind: 'retry', error: message };
      }
      await this.jobs.fail(jobId, message, reporter.latest);
      log.warn({ err: error, progress: reporter.latest }, 'job failed');
      return { kind: 'failed', error: message };
    }
  }

  /** The stored form of an error: its message, without secrets, bounded. */
  describe(error: unknown): string {
    let message = error instanceof Error && error.message ? error.message : 'The job failed unexpectedly';
    for (const secret of this.secrets) message = message.split(secret).join('[redacted]');
    return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH - 1)}…` : message;
  }
}

/** Throttled progress writes: one in flight at a time, the latest figures win, none is lost. */
class ProgressReporter {
  latest: JobProgress;
  private lastWrite = 0;
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly jobId: string,
    private readonly logger: Logger,
    initial: JobProgress,
  ) {
    this.latest = initial;
  }

  report(progress: JobProgress): void {
    this.latest = { total: progress.total, done: progress.done, skipped: progress.skipped, failed: progress.failed };
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    const wait = Math.max(0, this.lastWrite + PROGRESS_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, wait);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    if (this.closed) return;
    if (this.writing) {
      await this.writing;
      this.schedule();
      return;
    }
    this.lastWrite = Date.now();
    const figures = this.latest;
    this.writing = this.jobs
      .saveProgress(this.jobId, figures)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not store job progress'))
      .finally(() => {
        this.writing = undefined;
      });
    await this.writing;
  }

  /** Stops further writes and waits for the one in flight; the caller stores the final figures. */
  async settle(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
  }
}
