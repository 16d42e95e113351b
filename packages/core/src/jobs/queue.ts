import type { JobType } from './catalog.ts';

/** Where recorded jobs go to be run: in this process (embedded mode) or to BullMQ workers. */
export interface JobQueue {
  readonly kind: 'in-process' | 'bullmq';
  /**
   * Hands a job, already recorded in the jobs table, to whatever runs jobs; `requestId` (the
   * request that started it) travels with it into its log lines.
   */
  enqueue(job: { id: string; type: JobType; requestId?: string | undefined }): Promise<void>;
  /** Stops running jobs: the one in progress is handed back and resumes later. */
  close(): Promise<void>;
}

/** Attempts per job (an attempt ends early only on a transient upstream failure). */
export const JOB_ATTEMPTS = 3;
/** Delay before the second attempt; doubled before each further one. */
export const JOB_BACKOFF_MS = 15_000;

/** The wait before the attempt after `attempt` (1-based): the backoff, doubled per further attempt (BullMQ's exponential backoff). */
export function retryDelayMs(backoffMs: number, attempt: number): number {
  return backoffMs * 2 ** Math.max(0, attempt - 1);
}

/** The abort reason given to a running job when its process shuts down. */
export class ShutdownError extends Error {
  constructor() {
    super('The process is shutting down');
    this.name = 'ShutdownError';
  }
}
