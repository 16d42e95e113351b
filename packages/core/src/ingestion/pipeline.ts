/**
 * Bounded overlap for bulk ingestion: a group of documents is split, embedded and written by one
 * ingestMany call (one transaction); while up to `limit` groups are being written, the next one
 * is already being prepared. On PostgreSQL the writes (dominated by vector index inserts) run in
 * the database's processes, so preparing and writing use different cores.
 */
export class WritePipeline {
  private readonly running: Array<Promise<unknown>> = [];

  constructor(private readonly limit = 2) {}

  /** Adds a started write; waits for the oldest one when more than `limit` are running. */
  async push(write: Promise<unknown>): Promise<void> {
    write.catch(() => undefined); // observed by push or drain; never an unhandled rejection meanwhile
    this.running.push(write);
    if (this.running.length > this.limit) await this.running.shift();
  }

  /** Waits for every write to end, ignoring failures (the caller is already failing). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.running.splice(0));
  }

  /** Waits for every write; rejects with the first failure, but only once none is running. */
  async drain(): Promise<void> {
    const writes = this.running.splice(0);
    const outcomes = await Promise.allSettled(writes);
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failure) throw failure.reason;
  }
}
