import { Worker } from 'node:worker_threads';
import { InvalidSpecError } from './errors.ts';
import type { OperationsResult } from './operations.ts';

/** Memory a spec's parse may use before the worker is stopped (alias or nesting bombs). */
const WORKER_HEAP_MB = 1024;

/**
 * Parses a spec and renders its operations in a worker thread: a large YAML spec takes over a
 * second of synchronous parsing, which would stall every other request of the server, and a
 * pathological one must not be able to take the server's own heap down with it.
 */
export function operationsFromSpecText(text: string, format: 'json' | 'yaml'): Promise<OperationsResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./render-worker.mjs', import.meta.url), {
      workerData: { text, format },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    let settled = false;
    worker.once('message', (message: { ok: true; result: OperationsResult } | { ok: false; name: string; message: string }) => {
      settled = true;
      if (message.ok) resolve(message.result);
      else if (message.name === 'InvalidSpecError') reject(new InvalidSpecError(message.message));
      else reject(new Error(`Spec processing failed: ${message.message}`));
      void worker.terminate();
    });
    worker.once('error', (error) => {
      if (settled) return;
      settled = true;
      // Out of memory or a stack overflow in the parser: the spec is what is wrong.
      reject(new InvalidSpecError(`the spec could not be processed within the service's limits (${error.message})`));
    });
    worker.once('exit', (code) => {
      if (!settled) {
        settled = true;
        reject(new InvalidSpecError(`the spec could not be processed within the service's limits (exit ${code})`));
      }
    });
  });
}
