import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runProcess } from '../src/run-process.ts';

/** Signal listeners added by a test are removed after it: the test process keeps its own. */
const before = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
beforeEach(() => {
  vi.stubEnv('LOG_LEVEL', 'silent');
});
afterEach(() => {
  vi.unstubAllEnvs();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    for (const listener of process.listeners(signal)) if (!before[signal].includes(listener)) process.off(signal, listener);
  }
  vi.restoreAllMocks();
});

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a server or worker process', () => {
  it('stops gracefully once started when SIGTERM arrives while it starts', async () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const stop = vi.fn(async () => undefined);
    await runProcess(async () => {
      process.emit('SIGTERM');
      await tick(20);
      return { stop };
    });
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(0));
    expect(stop).toHaveBeenCalledTimes(1);
  });

  it('stops gracefully on SIGTERM once running, once however many signals come', async () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const stop = vi.fn(async () => {
      await tick(20);
    });
    await runProcess(async () => ({ stop }));
    expect(stop).not.toHaveBeenCalled();
    process.emit('SIGTERM');
    process.emit('SIGINT');
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(0));
    expect(stop).toHaveBeenCalledTimes(1);
  });

  it('exits 1 at a second signal while it still starts', async () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const stop = vi.fn(async () => undefined);
    let exitedWhileStarting: unknown;
    await runProcess(async () => {
      process.emit('SIGINT');
      process.emit('SIGINT');
      exitedWhileStarting = exit.mock.calls[0]?.[0];
      return { stop };
    });
    expect(exitedWhileStarting).toBe(1);
  });
});
