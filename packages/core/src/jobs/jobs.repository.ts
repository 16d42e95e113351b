import type { DB, JobProgress, JobStatus } from '@kb/db';
import { sql, type Kysely, type Selectable } from 'kysely';

export type JobRecord = Selectable<DB['ingestion_jobs']>;

export const EMPTY_PROGRESS: JobProgress = Object.freeze({ total: 0, done: 0, skipped: 0, failed: 0 });

/** An ingestion job as the API shows it. */
export interface JobView {
  id: string;
  type: string;
  status: JobStatus;
  payload: Record<string, unknown>;
  progress: JobProgress;
  attempts: number;
  /** Attempts its queue gives it; null until it first starts. */
  maxAttempts: number | null;
  /** A job waiting to be retried after a transient failure: when it runs again. */
  nextAttemptAt: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /** Present on failed jobs only. */
  error?: string;
  /** A job still being retried: what made its last attempt fail. */
  lastError?: string;
}

export function toJobView(record: JobRecord): JobView {
  return {
    id: record.id,
    type: record.type,
    status: record.status,
    payload: record.payload,
    progress: { ...EMPTY_PROGRESS, ...record.progress },
    attempts: record.attempts,
    maxAttempts: record.max_attempts,
    nextAttemptAt: record.status === 'pending' ? (record.next_attempt_at?.toISOString() ?? null) : null,
    createdAt: record.created_at.toISOString(),
    startedAt: record.started_at?.toISOString() ?? null,
    completedAt: record.completed_at?.toISOString() ?? null,
    ...(record.status === 'failed' ? { error: record.error ?? 'The job failed' } : {}),
    ...(record.status !== 'failed' && record.status !== 'done' && record.error ? { lastError: record.error } : {}),
  };
}

/**
 * The ingestion_jobs table: the durable record of every job, whatever runs it (the in-process
 * runner or BullMQ workers). The queue only carries job ids; status, payload and progress live
 * here, so the job list is one indexed query and survives a flushed Redis.
 */
export class JobsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  create(type: string, payload: Record<string, unknown>): Promise<JobRecord> {
    return this.db
      .insertInto('ingestion_jobs')
      .values({ type, payload: JSON.stringify(payload), error: null, started_at: null, completed_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** The pending or running sync job of a source, if any. */
  activeSourceSync(sourceId: string): Promise<Pick<JobRecord, 'id' | 'status'> | undefined> {
    return this.db
      .selectFrom('ingestion_jobs')
      .select(['id', 'status'])
      .where('type', '=', 'source-sync')
      .where('status', 'in', ['pending', 'running'])
      .where(sql<boolean>`payload->>'sourceId' = ${sourceId}`)
      .executeTakeFirst();
  }

  get(id: string): Promise<JobRecord | undefined> {
    return this.db.selectFrom('ingestion_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Newest first. */
  listRecent(limit: number): Promise<JobRecord[]> {
    return this.db
      .selectFrom('ingestion_jobs')
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** How many jobs are in each status (metrics). */
  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('ingestion_jobs')
      .select((eb) => ['status', eb.fn.countAll<string>().as('count')])
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
  }

  /** Jobs not finished yet (pending or running), oldest first. */
  listUnfinished(): Promise<JobRecord[]> {
    return this.db
      .selectFrom('ingestion_jobs')
      .selectAll()
      .where('status', 'in', ['pending', 'running'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /**
   * Marks an unfinished job running and counts the attempt. Returns undefined when the job does
   * not exist or has already finished (a redelivered queue entry). The last attempt's error stays
   * until this one ends: a job list shows why it is being retried.
   */
  start(id: string, maxAttempts?: number): Promise<JobRecord | undefined> {
    const now = new Date();
    return this.db
      .updateTable('ingestion_jobs')
      .set((eb) => ({
        status: 'running',
        attempts: eb('attempts', '+', 1),
        started_at: eb.fn.coalesce('started_at', eb.val(now)),
        next_attempt_at: null,
        ...(maxAttempts === undefined ? {} : { max_attempts: maxAttempts }),
        updated_at: now,
      }))
      .where('id', '=', id)
      .where('status', 'in', ['pending', 'running'])
      .returningAll()
      .executeTakeFirst();
  }

  async saveProgress(id: string, progress: JobProgress): Promise<void> {
    await this.db
      .updateTable('ingestion_jobs')
      .set({ progress: JSON.stringify(progress), updated_at: new Date() })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .execute();
  }

  async finish(id: string, progress: JobProgress): Promise<void> {
    const now = new Date();
    await this.db
      .updateTable('ingestion_jobs')
      .set({ status: 'done', progress: JSON.stringify(progress), error: null, next_attempt_at: null, completed_at: now, updated_at: now })
      .where('id', '=', id)
      .where('status', 'in', ['pending', 'running'])
      .execute();
  }

  /** Ends an unfinished job as failed; a finished job is left as it is. */
  async fail(id: string, error: string, progress?: JobProgress): Promise<void> {
    const now = new Date();
    await this.db
      .updateTable('ingestion_jobs')
      .set({
        status: 'failed',
        error,
        next_attempt_at: null,
        completed_at: now,
        updated_at: now,
        ...(progress ? { progress: JSON.stringify(progress) } : {}),
      })
      .where('id', '=', id)
      .where('status', 'in', ['pending', 'running'])
      .execute();
  }

  /** A running job's latest failure, while it goes on (an upstream request being retried). */
  async noteError(id: string, error: string): Promise<void> {
    await this.db
      .updateTable('ingestion_jobs')
      .set({ error, updated_at: new Date() })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .execute();
  }

  /**
   * Returns a running job to the queue's waiting state: a shutdown hand-back, or a retry after
   * backoff (`retry`: the failure and when the next attempt runs).
   */
  async requeue(id: string, progress?: JobProgress, retry?: { error: string; at: Date }): Promise<void> {
    await this.db
      .updateTable('ingestion_jobs')
      .set({
        status: 'pending',
        updated_at: new Date(),
        ...(progress ? { progress: JSON.stringify(progress) } : {}),
        ...(retry ? { error: retry.error, next_attempt_at: retry.at } : {}),
      })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .execute();
  }
}
