// The body of a worker-pool thread (see pool.ts): runs tasks from the task table, one request at
// a time, for as long as the thread lives.
import { parentPort } from 'node:worker_threads';
import { collectStartupGarbage } from './startup-garbage.ts';
import { TASKS, type Task } from './tasks.ts';

const port = parentPort;
if (port === null) throw new Error('thread.ts runs only as a worker thread');

// Inputs arrive untyped from the caller's thread, which typed them when it sent them (pool.ts).
const table: Record<string, Task<unknown, unknown>> = TASKS as unknown as Record<string, Task<unknown, unknown>>;

port.on('message', ({ id, task, input }: { id: number; task: string; input: unknown }) => {
  try {
    const definition = Object.hasOwn(table, task) ? table[task] : undefined;
    if (definition === undefined) throw new Error(`unknown task ${task}`);
    const result = definition.run(input);
    port.postMessage({ id, ok: true, result }, definition.transfer?.(result) ?? []);
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    port.postMessage({ id, ok: false, name: failure.name, message: failure.message });
  }
});
port.postMessage({ ready: true });
collectStartupGarbage();
