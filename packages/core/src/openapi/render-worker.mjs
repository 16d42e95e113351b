// Parses and renders one spec off the server's thread (see off-thread.ts). Plain JavaScript so
// that it starts in any runtime; it loads the TypeScript sources through tsx.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { operationsFromSpec, parseSpec } = await import('./index.ts');
try {
  const result = operationsFromSpec(parseSpec(workerData.text, workerData.format));
  parentPort.postMessage({ ok: true, result });
} catch (error) {
  parentPort.postMessage({ ok: false, name: error?.name ?? 'Error', message: error?.message ?? String(error) });
}
