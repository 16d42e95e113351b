import type { Logger } from '../logger.ts';
import type { GapRecord, QueryLogEntry, QueryLogRepository } from './query-log.repository.ts';

export const DEFAULT_GAPS_PAGE = 50;
export const MAX_GAPS_PAGE = 200;
/** Entries a process holds while the store cannot take them; beyond it the oldest are dropped (and logged). */
const MAX_PENDING = 10_000;
/**
 * UTF-16 units of a query the log keeps, and of the key it groups by: enough to read it, and an
 * index entry (at most 2,704 bytes) holds it whatever the script (at most 3 bytes a unit).
 */
const MAX_LOGGED_QUERY_UNITS = 500;
const DAY_MS = 86_400_000;

/** The query the log groups repeats by: lower case, white space collapsed. */
export function normalizeQuery(query: string): string {
  return truncateUnits(query.trim().replace(/\s+/g, ' ').toLowerCase(), MAX_LOGGED_QUERY_UNITS);
}

/** The first `max` UTF-16 units of `text`, never half of a surrogate pair. */
function truncateUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

export interface GapView {
  /** The query as last asked. */
  query: string;
  /** Times it was asked in the window. */
  count: number;
  /** Its best and mean best score over those times; null when nothing was ever found. */
  bestScore: number | null;
  meanScore: number | null;
  namespaces: string[];
  kinds: Array<'search' | 'chat'>;
  firstAskedAt: string;
  lastAskedAt: string;
  /** Thumbs-down votes on answers to it in the window. */
  thumbsDown: number;
}

/**
 * Knowledge gaps: every search and chat question is recorded with the best score its retrieval
 * found, and the weakest are listed, repeats grouped. Recording is off the request's path: entries
 * are buffered and written in one statement every few seconds (and at shutdown); a failed write is
 * kept and retried, and only a long outage past MAX_PENDING entries drops the oldest, with a
 * warning. Entries older than the retention period are deleted as the log is written.
 */
export class QueryLog {
  private pending: QueryLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private lastPrune = Number.NEGATIVE_INFINITY;
  private readonly now: () => Date;
  private readonly intervalMs: number;

  constructor(
    private readonly repository: QueryLogRepository,
    private readonly logger: Logger,
    private readonly options: {
      /** Days an entry is kept; 0 records nothing. */
      retentionDays: number;
      /** The clock (tests inject one). */
      now?: () => Date;
      intervalMs?: number;
    },
  ) {
    this.now = options.now ?? (() => new Date());
    this.intervalMs = options.intervalMs ?? 2_000;
  }

  get enabled(): boolean {
    return this.options.retentionDays > 0;
  }

  start(): void {
    if (!this.enabled) {
      // Turned off: what was recorded while it was on goes too (the setting is also a privacy switch).
      void this.repository.deleteBefore(new Date(this.now().getTime() + DAY_MS)).catch((error: unknown) => this.logger.warn({ err: error }, 'could not clear the query log'));
      return;
    }
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Records a query (buffered: no I/O here). The key's id only, never the key. */
  record(entry: { kind: 'search' | 'chat'; query: string; namespaces: readonly string[] | null; bestScore: number | null; apiKeyId: string | null }): void {
    if (!this.enabled) return;
    this.pending.push({
      kind: entry.kind,
      query: truncateUnits(entry.query, MAX_LOGGED_QUERY_UNITS),
      normalized: normalizeQuery(entry.query),
      namespaces: [...(entry.namespaces ?? [])].sort(),
      bestScore: entry.bestScore,
      apiKeyId: entry.apiKeyId,
      at: this.now(),
    });
    if (this.pending.length > MAX_PENDING) {
      const dropped = this.pending.length - MAX_PENDING;
      this.pending.splice(0, dropped);
      this.logger.warn({ dropped }, 'query log: the store has not taken entries for a while; the oldest were dropped');
    }
  }

  /** Writes what is buffered and deletes expired entries (at most once a minute). Failed writes are retried. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (!this.enabled) return;
      const batch = this.pending;
      this.pending = [];
      if (batch.length > 0) {
        try {
          await this.repository.insert(batch);
        } catch (error) {
          this.logger.warn({ err: error, entries: batch.length }, 'could not write the query log; will retry');
          this.pending = [...batch, ...this.pending];
          return;
        }
      }
      const now = this.now().getTime();
      if (now - this.lastPrune >= 60_000) {
        try {
          await this.repository.deleteBefore(this.cutoff());
          this.lastPrune = now;
        } catch (error) {
          this.logger.warn({ err: error }, 'could not delete expired query log entries; will retry');
        }
      }
    });
    return this.flushing;
  }

  private cutoff(): Date {
    return new Date(this.now().getTime() - this.options.retentionDays * DAY_MS);
  }

  /**
   * The weakest queries of the retention period (written entries; call flush first to include the
   * buffered ones), repeats grouped.
   */
  async gaps(filter: { kind?: 'search' | 'chat'; maxScore?: number; limit?: number; offset?: number }): Promise<{ gaps: GapView[]; total: number; take: number; skip: number }> {
    const take = Math.min(filter.limit ?? DEFAULT_GAPS_PAGE, MAX_GAPS_PAGE);
    const skip = filter.offset ?? 0;
    if (!this.enabled) return { gaps: [], total: 0, take, skip };
    await this.flush();
    const { total, gaps } = await this.repository.gaps(
      {
        since: this.cutoff(),
        ...(filter.kind !== undefined ? { kind: filter.kind } : {}),
        ...(filter.maxScore !== undefined ? { maxScore: filter.maxScore } : {}),
      },
      { limit: take, offset: skip },
    );
    return { gaps: gaps.map(toView), total, take, skip };
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

function toView(g: GapRecord): GapView {
  return {
    query: g.query,
    count: g.count,
    bestScore: g.bestScore,
    meanScore: g.meanScore,
    namespaces: g.namespaces,
    kinds: g.kinds,
    firstAskedAt: g.firstAskedAt.toISOString(),
    lastAskedAt: g.lastAskedAt.toISOString(),
    thumbsDown: g.thumbsDown,
  };
}
