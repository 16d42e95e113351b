/**
 * Where a source's schedule lives. Services mode: a BullMQ job scheduler per source
 * (`source:<id>`), kept in Redis, so the schedule survives restarts and each tick is one queue
 * entry that exactly one worker takes, however many run; the worker turns it into a sync job
 * (at most one pending or running per source). Embedded mode: the store's `next_sync_at`, read
 * by a timer in the server process, so the schedule survives restarts there too.
 */
import type { Logger } from '../logger.ts';
import type { BullJobQueue } from '../jobs/bullmq.ts';
import type { SourceScheduler, SourcesService } from './sources.service.ts';

/** The name of a schedule tick's queue entry. */
export const SOURCE_SCHEDULE_ENTRY = 'source-schedule';

export function sourceSchedulerId(sourceId: string): string {
  return `source:${sourceId}`;
}

export class BullSourceScheduler implements SourceScheduler {
  /** @param minuteMs how long a schedule's minute lasts: a minute, except in tests that watch schedules tick. */
  constructor(
    private readonly producer: BullJobQueue,
    private readonly minuteMs = 60_000,
  ) {}

  async set(sourceId: string, everyMinutes: number | null): Promise<void> {
    const id = sourceSchedulerId(sourceId);
    if (everyMinutes === null) {
      await this.producer.queue.removeJobScheduler(id);
      return;
    }
    await this.producer.queue.upsertJobScheduler(
      id,
      // The first tick one interval from now, as in embedded mode: BullMQ's own first tick of an
      // `every` is at once, which would sync a source added with `sync: false`. A scheduler that
      // exists with the same interval keeps its cadence (BullMQ ignores the start date then).
      { every: everyMinutes * this.minuteMs, startDate: Date.now() + everyMinutes * this.minuteMs },
      { name: SOURCE_SCHEDULE_ENTRY, data: { jobId: '', sourceId }, opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } },
    );
  }

  /** The scheduler's own next tick: it keeps its cadence whatever manual syncs happen between. */
  async next(sourceId: string): Promise<Date | undefined> {
    const next = (await this.producer.queue.getJobScheduler(sourceSchedulerId(sourceId)))?.next;
    return next === undefined ? undefined : new Date(next);
  }
}

/** Embedded mode: checks the store for due sources every `intervalMs`. */
export class StoreSourceScheduler implements SourceScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly service: SourcesService,
    private readonly logger: Logger,
    private readonly intervalMs = 30_000,
  ) {}

  /** The schedule itself is the source's row: nothing to do here. */
  set(): Promise<void> {
    return Promise.resolve();
  }

  start(): void {
    const tick = () => {
      this.running = this.service.syncDue().catch((error: unknown) => this.logger.warn({ err: error }, 'scheduled source syncs not checked'));
    };
    tick();
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
