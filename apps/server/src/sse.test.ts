import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SseWriter } from './sse.ts';

/** A response that records what is written to it. */
function fakeResponse() {
  const res = Object.assign(new EventEmitter(), {
    written: [] as string[],
    head: undefined as undefined | { status: number; headers: Record<string, unknown> },
    destroyed: false,
    writableEnded: false,
    socket: { setNoDelay: vi.fn() },
    writeHead(status: number, headers: Record<string, unknown>) {
      res.head = { status, headers };
    },
    flushHeaders: vi.fn(),
    write(chunk: string) {
      res.written.push(chunk);
      return true;
    },
    end() {
      res.writableEnded = true;
    },
  });
  return res;
}

describe('SseWriter', () => {
  afterEach(() => vi.useRealTimers());

  it('sends the stream headers at once and one data line per event', async () => {
    const res = fakeResponse();
    const sse = new SseWriter(res as unknown as ServerResponse);
    sse.start({ 'RateLimit-Limit': '5' });
    expect(res.head).toEqual({
      status: 200,
      headers: {
        'RateLimit-Limit': '5',
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        'X-Accel-Buffering': 'no',
        Connection: 'keep-alive',
      },
    });
    expect(res.flushHeaders).toHaveBeenCalled();
    await sse.send({ type: 'chunk', text: 'a\nb' });
    await sse.send('[DONE]');
    sse.end();
    expect(res.written).toEqual(['data: {"type":"chunk","text":"a\\nb"}\n\n', 'data: [DONE]\n\n']);
    await sse.send({ type: 'chunk', text: 'late' });
    expect(res.written).toHaveLength(2);
  });

  it('sends a ping comment after each stretch of silence, and none while events flow', async () => {
    vi.useFakeTimers();
    const res = fakeResponse();
    const sse = new SseWriter(res as unknown as ServerResponse, 15_000);
    sse.start();
    await vi.advanceTimersByTimeAsync(14_000);
    await sse.send({ type: 'chunk', text: 'x' });
    await vi.advanceTimersByTimeAsync(14_000);
    expect(res.written).toEqual(['data: {"type":"chunk","text":"x"}\n\n']);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(res.written.at(-1)).toBe(': ping\n\n');
    await vi.advanceTimersByTimeAsync(15_000);
    expect(res.written.filter((w) => w === ': ping\n\n')).toHaveLength(2);
    sse.end();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(res.written.filter((w) => w === ': ping\n\n')).toHaveLength(2);
  });
});
