import type { Logger } from 'pino';
import type { ApiKeysRepository } from './keys.repository.ts';

/**
 * Counts requests per key in memory and writes the sums every few seconds, so a request
 * costs no database write. Sums are added (not assigned), so any number of server
 * processes can flush into the same rows.
 */
export class UsageTracker {
  private pending = new Map<string, { count: number; lastUsedAt: Date }>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repository: ApiKeysRepository,
    private readonly logger: Logger,
    private readonly intervalMs = 2_000,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  record(keyId: string, at = new Date()): void {
    const entry = this.pending.get(keyId);
    if (entry) {
      entry.count += 1;
      if (at > entry.lastUsedAt) entry.lastUsedAt = at;
    } else {
      this.pending.set(keyId, { count: 1, lastUsedAt: at });
    }
  }

  /** Writes what has accumulated. Failed writes are kept and retried on the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.repository.addUsage([...batch].map(([id, v]) => ({ id, ...v })));
      } catch (error) {
        this.logger.warn({ err: error, keys: batch.size }, 'could not record API key usage; will retry');
        for (const [id, value] of batch) {
          const current = this.pending.get(id);
          if (current) {
            current.count += value.count;
            if (value.lastUsedAt > current.lastUsedAt) current.lastUsedAt = value.lastUsedAt;
          } else {
            this.pending.set(id, value);
          }
        }
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
