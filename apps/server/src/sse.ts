import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { metrics } from '@kb/core';

/** Comment line sent after this long without an event, so proxies keep an idle stream open. */
export const SSE_PING_MS = 15_000;

/**
 * A Server-Sent Events response: the headers that keep proxies from buffering or compressing
 * it, one `data:` line per event written (and so flushed) as it comes, `: ping` comments after
 * `pingMs` of silence, and writes that wait for a slow client instead of buffering without bound.
 */
export class SseWriter {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly pingMs = SSE_PING_MS,
  ) {}

  /** Whether the client can still be written to. */
  get open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  start(headers: Record<string, string | string[]> = {}): void {
    this.res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    this.res.flushHeaders();
    metrics.sseStream(1);
    this.res.once('close', () => metrics.sseStream(-1));
    this.res.socket?.setNoDelay(true);
    this.timer = setTimeout(() => this.ping(), this.pingMs);
    this.timer.unref();
  }

  private ping(): void {
    if (!this.open) return;
    this.res.write(': ping\n\n');
    this.timer?.refresh();
  }

  /** Writes one event (`data: <JSON>`, or the literal `[DONE]`). */
  async send(data: unknown): Promise<void> {
    if (!this.open) return;
    this.timer?.refresh();
    const line = `data: ${data === '[DONE]' ? '[DONE]' : JSON.stringify(data)}\n\n`;
    if (!this.res.write(line)) {
      await Promise.race([once(this.res, 'drain'), once(this.res, 'close')]);
    }
  }

  end(): void {
    clearTimeout(this.timer);
    if (this.open) this.res.end();
  }
}
