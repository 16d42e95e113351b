import type { ColumnType, Generated, JSONColumnType } from 'kysely';

export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

export interface JobProgress {
  total: number;
  done: number;
  skipped: number;
  failed: number;
}

export interface IngestionJobsTable {
  id: Generated<string>;
  type: string;
  status: Generated<JobStatus>;
  payload: JSONColumnType<Record<string, unknown>, string, string>;
  progress: JSONColumnType<JobProgress, string | undefined, string>;
  attempts: Generated<number>;
  /** Attempts its queue gives it (null: not started yet). */
  max_attempts: ColumnType<number | null, number | null | undefined, number | null>;
  /** The failure that ended it, or, while it is retried, the last attempt's. */
  error: string | null;
  /** When a job waiting after a transient failure runs again. */
  next_attempt_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Job-type specific state kept between attempts (e.g. the pages seen so far). */
  state: JSONColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: ColumnType<Date, never, never>;
  started_at: Date | null;
  completed_at: Date | null;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
