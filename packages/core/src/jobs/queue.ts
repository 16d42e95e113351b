import type { JobType } from './catalog.ts';

/** Where recorded jobs go to be run: in this process (embedded mode) or to BullMQ workers. */
export interface JobQueue {
  readonly kind: 'in-process' | 'bullmq';
  /** Hands a job, already recorded in the jobs table, to whatever runs jobs. */
  enqueue(job: { id: string; type: JobType }): Promise<void>;
  /** Stops running jobs: the one in progress is handed back and resumes later. */
  close(): Promise<void>;
}

/** Attempts per job (an attempt ends early only on a transient upstream failure). */
export const JOB_ATTEMPTS = 3;
/** Delay before the second attempt; doubled before each further one. */
export const JOB_BACKOFF_MS = 15_000;

/** The abort reason given to a running job when its process shuts down. */
export class ShutdownError extends Error {
  constructor() {
    super('The process is shutting down');
    this.name = 'ShutdownError';
  }
}
