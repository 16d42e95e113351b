import { isUniqueViolation, type JobProgress, type SourceSyncStats, type SourceSyncStatus } from '@kb/db';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { IngestionService } from '../ingestion/ingestion.service.ts';
import type { JobHandler } from '../jobs/job-runner.ts';
import type { JobsRepository } from '../jobs/jobs.repository.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { decodeCursor } from '../lists/keyset.ts';
import type { Logger } from '../logger.ts';
import { isNamespace, type Namespace } from '../namespaces.ts';
import { missingWikiSettings, type WikiSettings } from '../wiki/wiki-import.ts';
import type { ConfluenceClientOptions } from '../wiki/confluence-client.ts';
import { syncConfluence } from './confluence-sync.ts';
import { SETTINGS_BY_KIND, isSourceKind, type ConfluenceSettings, type SourceKind, type WebsiteSettings } from './settings.ts';
import { EMPTY_STATS, type SourceRecord, type SourcesRepository } from './sources.repository.ts';
import { SourceSyncError, syncWebsite, type WebsiteSyncDeps } from './website-sync.ts';

export const MAX_SOURCES_PAGE = 100;
export const DEFAULT_SOURCES_PAGE = 50;
export const MAX_FAILURES_PAGE = 200;

export interface SourceView {
  id: string;
  kind: SourceKind;
  name: string;
  namespace: string;
  settings: Record<string, unknown>;
  /** Synced every this many minutes; null: on demand only. */
  scheduleMinutes: number | null;
  /** `queued` or `syncing` while a sync job is pending or running, else `idle`. */
  status: 'idle' | 'queued' | 'syncing';
  /** The sync in progress or the last one: its job, outcome and figures. */
  lastSync: {
    jobId: string | null;
    status: SourceSyncStatus | 'running';
    error: string | null;
    startedAt: string | null;
    finishedAt: string | null;
    pages: SourceSyncStats;
  } | null;
  nextSyncAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface SourceFailureView {
  url: string;
  reason: string;
  httpStatus: number | null;
  at: string;
}

/** Where schedules live: BullMQ job schedulers (services mode) or the store, read by a timer (embedded mode). */
export interface SourceScheduler {
  /** Sets (or, with null, removes) the schedule of a source. */
  set(sourceId: string, everyMinutes: number | null): Promise<void>;
  /**
   * When the schedule ticks next, where the scheduler keeps its own time (BullMQ's, which a
   * manual sync does not move); undefined leaves it to the store's `next_sync_at`.
   */
  next?(sourceId: string): Promise<Date | undefined>;
}

const failureCursor = {
  encode: (url: string) => Buffer.from(JSON.stringify(['url', url])).toString('base64url'),
  decode(cursor: string): string {
    try {
      const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (Array.isArray(parsed) && parsed[0] === 'url' && typeof parsed[1] === 'string') return parsed[1];
    } catch {
      // fall through
    }
    throw new AppError('BAD_REQUEST', 'cursor is not one this list returned (pass the nextCursor of a previous page)');
  },
};

function issuesText(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length > 0 ? `settings.${issue.path.join('.')}` : 'settings'}: ${issue.message}`).join('; ');
}

function validateSettings(kind: SourceKind, settings: unknown): Record<string, unknown> {
  const result = SETTINGS_BY_KIND[kind].safeParse(settings);
  if (!result.success) throw new AppError('BAD_REQUEST', `Invalid ${kind} settings (${issuesText(result.error)})`);
  return result.data as Record<string, unknown>;
}

function nextSync(scheduleMinutes: number | null, from = Date.now()): Date | null {
  return scheduleMinutes === null ? null : new Date(from + scheduleMinutes * 60_000);
}

const notFound = () => new AppError('NOT_FOUND', 'No such source');

/** Sources: the API's side (create, read, change, delete, sync now, failures) and the scheduled syncs. */
export class SourcesService {
  private scheduler: SourceScheduler | null = null;

  constructor(
    private readonly sources: SourcesRepository,
    private readonly jobs: JobsRepository,
    private readonly queue: JobQueue,
    private readonly ingestion: IngestionService,
    private readonly logger: Logger,
    /** The server's Confluence account: a `confluence` source needs it (undefined: not checked here). */
    private readonly wiki?: WikiSettings,
  ) {}

  useScheduler(scheduler: SourceScheduler): void {
    this.scheduler = scheduler;
  }

  async create(input: { kind: string; name: string; namespace: string; settings: unknown; scheduleMinutes?: number | null }): Promise<SourceView> {
    if (!isSourceKind(input.kind)) throw new AppError('BAD_REQUEST', `Unknown source kind ${JSON.stringify(input.kind.slice(0, 50))}`);
    if (!isNamespace(input.namespace)) throw new AppError('BAD_REQUEST', `Unknown namespace ${JSON.stringify(input.namespace.slice(0, 50))}`);
    const settings = validateSettings(input.kind, input.settings);
    if (input.kind === 'confluence' && this.wiki) {
      const missing = missingWikiSettings(this.wiki);
      if (missing.length > 0) throw new AppError('SERVICE_UNAVAILABLE', `Confluence sources are not configured on this server: set ${missing.join(', ')}`);
    }
    const scheduleMinutes = input.scheduleMinutes ?? null;
    const record = await this.sources.create({ kind: input.kind, name: input.name, namespace: input.namespace, settings, scheduleMinutes, nextSyncAt: nextSync(scheduleMinutes) });
    await this.scheduler?.set(record.id, scheduleMinutes);
    return this.view(record);
  }

  async list(input: { limit?: number; cursor?: string }): Promise<{ sources: SourceView[]; take: number; nextCursor: string | null }> {
    const take = Math.min(input.limit ?? DEFAULT_SOURCES_PAGE, MAX_SOURCES_PAGE);
    const { sources, nextCursor } = await this.sources.list({ limit: take, ...(input.cursor !== undefined ? { after: decodeCursor(input.cursor) } : {}) });
    return { sources: await Promise.all(sources.map((s) => this.view(s))), take, nextCursor };
  }

  async get(id: string): Promise<SourceView> {
    return this.view(await this.find(id));
  }

  async update(id: string, input: { name?: string; settings?: unknown; scheduleMinutes?: number | null }): Promise<SourceView> {
    const found = await this.find(id);
    const kind = found.kind as SourceKind;
    const settings = input.settings === undefined ? undefined : validateSettings(kind, input.settings);
    const record = await this.sources.update(id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(settings !== undefined ? { settings } : {}),
      ...(input.scheduleMinutes !== undefined ? { scheduleMinutes: input.scheduleMinutes, nextSyncAt: nextSync(input.scheduleMinutes) } : {}),
    });
    if (!record) throw notFound();
    if (input.scheduleMinutes !== undefined) await this.scheduler?.set(id, input.scheduleMinutes);
    return this.view(record);
  }

  /** Deletes a source; with `documents`, the documents it wrote too (else they stay, without a source). */
  async delete(id: string, options: { documents: boolean }): Promise<{ deleted: true; id: string; documentsRemoved: number }> {
    await this.find(id);
    const documentsRemoved = options.documents ? await this.ingestion.removeOfSource(id) : 0;
    if (!(await this.sources.delete(id))) throw notFound();
    await this.scheduler?.set(id, null);
    return { deleted: true, id, documentsRemoved };
  }

  /**
   * Queues a sync. One sync of a source is pending or running at a time (a unique index makes
   * that atomic across processes): asking again meanwhile is a 409 naming the job; a scheduled
   * tick meanwhile is dropped (null).
   */
  async syncNow(id: string, origin: { trigger?: 'manual' | 'schedule'; requestId?: string } = {}): Promise<{ jobId: string; status: 'pending' } | null> {
    const trigger = origin.trigger ?? 'manual';
    // A schedule's tick for a source deleted meanwhile starts nothing.
    if (trigger === 'schedule' && !(isUuid(id) && (await this.sources.get(id)))) return null;
    await this.find(id);
    let jobId: string;
    try {
      jobId = (await this.jobs.create('source-sync', { sourceId: id, trigger })).id;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (trigger === 'schedule') return null;
      const running = await this.jobs.activeSourceSync(id);
      throw new AppError('CONFLICT', `A sync of this source is already ${running?.status ?? 'queued'}${running ? ` (job ${running.id})` : ''}`);
    }
    try {
      await this.queue.enqueue({ id: jobId, type: 'source-sync', requestId: origin.requestId });
    } catch (error) {
      this.logger.error({ err: error, jobId }, 'could not queue a source sync');
      await this.jobs.fail(jobId, 'The job queue was unavailable; sync the source again').catch(() => undefined);
      throw new AppError('SERVICE_UNAVAILABLE', 'The job queue is unavailable; try again later', { cause: error });
    }
    return { jobId, status: 'pending' };
  }

  /** Embedded mode's schedule: queues the syncs that are due (their next time moves on first, so a tick runs once). */
  async syncDue(now = new Date()): Promise<number> {
    let queued = 0;
    for (const { id } of await this.sources.due(now)) {
      const record = await this.sources.get(id);
      if (!record || record.schedule_minutes === null) continue;
      await this.sources.update(id, { nextSyncAt: nextSync(record.schedule_minutes, now.getTime()) });
      if (await this.syncNow(id, { trigger: 'schedule' }).catch((error: unknown) => this.logger.warn({ err: error, sourceId: id }, 'scheduled sync not queued'))) queued++;
    }
    return queued;
  }

  /** Every source's schedule handed to the scheduler again (a Redis that lost its data gets them back). */
  async reconcileSchedules(): Promise<void> {
    if (!this.scheduler) return;
    for (const { id, schedule_minutes } of await this.sources.scheduled()) await this.scheduler.set(id, schedule_minutes);
  }

  /** The pages that failed in the last sync, with their reasons, by URL. */
  async failures(id: string, input: { limit?: number; cursor?: string }): Promise<{ failures: SourceFailureView[]; take: number; nextCursor: string | null }> {
    const found = await this.find(id);
    const take = Math.min(input.limit ?? DEFAULT_SOURCES_PAGE, MAX_FAILURES_PAGE);
    const afterUrl = input.cursor === undefined ? undefined : failureCursor.decode(input.cursor);
    const { failures, nextUrl } = await this.sources.failures(id, found.sync_count, { limit: take, ...(afterUrl !== undefined ? { afterUrl } : {}) });
    return {
      failures: failures.map((row) => ({ url: row.url, reason: row.reason ?? 'Unknown', httpStatus: row.http_status, at: row.updated_at.toISOString() })),
      take,
      nextCursor: nextUrl === null ? null : failureCursor.encode(nextUrl),
    };
  }

  private async find(id: string): Promise<SourceRecord> {
    const found = isUuid(id) ? await this.sources.get(id) : undefined;
    if (!found) throw notFound();
    return found;
  }

  private async view(record: SourceRecord): Promise<SourceView> {
    const active = await this.jobs.activeSourceSync(record.id);
    const running = active !== undefined && record.last_sync_job_id === active.id && record.last_sync_finished_at === null;
    return {
      id: record.id,
      kind: record.kind as SourceKind,
      name: record.name,
      namespace: record.namespace,
      settings: record.settings,
      scheduleMinutes: record.schedule_minutes,
      status: active === undefined ? 'idle' : active.status === 'running' ? 'syncing' : 'queued',
      lastSync:
        record.last_sync_started_at === null
          ? null
          : {
              jobId: record.last_sync_job_id,
              status: running ? 'running' : (record.last_sync_status ?? 'running'),
              error: record.last_sync_error,
              startedAt: record.last_sync_started_at.toISOString(),
              finishedAt: record.last_sync_finished_at?.toISOString() ?? null,
              pages: { ...EMPTY_STATS, ...record.last_sync_stats },
            },
      nextSyncAt: record.schedule_minutes === null ? null : ((await this.scheduler?.next?.(record.id)) ?? record.next_sync_at)?.toISOString() ?? null,
      createdAt: record.created_at.toISOString(),
      updatedAt: record.updated_at.toISOString(),
    };
  }
}

function toProgress(stats: SourceSyncStats): JobProgress {
  return { total: stats.discovered, done: stats.updated, skipped: stats.unchanged, failed: stats.failed };
}

export type SourceSyncDeps = Omit<WebsiteSyncDeps, 'logger'> & {
  /** The server's Confluence account, for `confluence` sources (WIKI_*). */
  wiki?: WikiSettings;
  /** Confluence client options beyond the credentials (tests). */
  wikiClient?: Partial<ConfluenceClientOptions>;
};

/** The `source-sync` job: one sync of one source, its figures kept on the source as it goes. */
export function createSourceSyncHandler(deps: SourceSyncDeps): JobHandler<'source-sync'> {
  return async (context) => {
    const { sourceId } = context.payload;
    const started = await deps.sources.beginSync(sourceId, context.jobId);
    if (!started) {
      context.logger.info({ sourceId }, 'source sync skipped: the source was deleted');
      return { total: 0, done: 0, skipped: 0, failed: 0 };
    }
    if (!isSourceKind(started.kind) || !isNamespace(started.namespace)) {
      const error = `The source has an unknown kind or namespace (${started.kind}, ${started.namespace})`;
      await deps.sources.finishSync(sourceId, context.jobId, { status: 'failed', error, stats: { ...EMPTY_STATS } });
      throw new SourceSyncError(error);
    }
    let stats: SourceSyncStats = { ...EMPTY_STATS };
    let lastSaved = 0;
    const onProgress = (next: SourceSyncStats) => {
      stats = { ...next };
      context.progress(toProgress(stats));
      // Figures on the source itself, at most every second (the final ones always).
      if (Date.now() - lastSaved >= 1_000) {
        lastSaved = Date.now();
        deps.sources.saveStats(sourceId, stats).catch((error: unknown) => context.logger.warn({ err: error }, 'could not store sync figures'));
      }
    };
    try {
      const settings = SETTINGS_BY_KIND[started.kind].parse(started.settings);
      const target = { id: sourceId, namespace: started.namespace as Namespace, sync: started.sync_count };
      const result =
        started.kind === 'confluence'
          ? await syncConfluence(
              { ...target, settings: settings as ConfluenceSettings },
              {
                sources: deps.sources,
                ingestion: deps.ingestion,
                wiki: deps.wiki ?? {},
                ...(deps.wikiClient ? { wikiClient: deps.wikiClient } : {}),
                logger: context.logger,
                onRetry: (message) => context.noteError(message),
              },
              context.signal,
              onProgress,
            )
          : await syncWebsite({ ...target, settings: settings as WebsiteSettings }, { ...deps, logger: context.logger }, context.signal, onProgress);
      await deps.sources.finishSync(sourceId, context.jobId, result);
      context.logger.info({ sourceId, status: result.status, ...result.stats }, 'source synced');
      return toProgress(result.stats);
    } catch (error) {
      // A shutdown hands the job back: the next attempt starts over, cheaply (see website-sync.ts).
      if (context.signal.aborted) throw error;
      const message =
        error instanceof SourceSyncError ? error.message : error instanceof z.ZodError ? `The stored settings are invalid (${issuesText(error)})` : `The sync failed: ${(error as Error).message}`;
      await deps.sources.finishSync(sourceId, context.jobId, { status: 'failed', error: message, stats });
      throw error instanceof SourceSyncError ? error : new SourceSyncError(message, (error as { transient?: unknown }).transient === true);
    }
  };
}

