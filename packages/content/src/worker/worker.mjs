// Runs the worker pool's tasks (tasks.ts) off the caller's thread, one request at a time, for as
// long as the worker lives (see pool.ts). Plain JavaScript so that it starts in any runtime; it
// loads the TypeScript sources through tsx.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { TASKS } = await import('./tasks.ts');

parentPort.on('message', ({ id, task, input }) => {
  try {
    const definition = Object.hasOwn(TASKS, task) ? TASKS[task] : undefined;
    if (definition === undefined) throw new Error(`unknown task ${task}`);
    const result = definition.run(input);
    parentPort.postMessage({ id, ok: true, result }, definition.transfer?.(result) ?? []);
  } catch (error) {
    parentPort.postMessage({ id, ok: false, name: error?.name ?? 'Error', message: error?.message ?? String(error) });
  }
});
parentPort.postMessage({ ready: true });
