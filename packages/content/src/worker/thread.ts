// The body of a worker-pool thread (see pool.ts): runs tasks from the task table, one request at
// a time, for as long as the thread lives.
import { parentPort } from 'node:worker_threads';
import { collectStartupGarbage } from './startup-garbage.ts';
import { TASKS, type Task } from './tasks.ts';

const port = parentPort;
if (port === null) throw new Error('thread.ts runs only as a worker thread');

// Inputs arrive untyped from the caller's thread, which typed them when it sent them (pool.ts).
const table: Record<string, Task<unknown, unknown>> = TASKS as unknown as Record<string, Task<unknown, unknown>>;

async function serve({ id, task, input }: { id: number; task: string; input: unknown }): Promise<void> {
  try {
    const definition = Object.hasOwn(table, task) ? table[task] : undefined;
    if (definition === undefined) throw new Error(`unknown task ${task}`);
    const result = await definition.run(input);
    port!.postMessage({ id, ok: true, result }, definition.transfer?.(result) ?? []);
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    port!.postMessage({ id, ok: false, name: failure.name, message: failure.message });
  }
}

// One request at a time, in order, async tasks included.
let turn: Promise<void> = Promise.resolve();
port.on('message', (message: { id: number; task: string; input: unknown }) => {
  turn = turn.then(() => serve(message));
});
port.postMessage({ ready: true });
collectStartupGarbage();
