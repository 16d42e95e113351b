// Parses and renders specs off the server's thread (see off-thread.ts), one request at a time,
// for as long as the worker lives. Plain JavaScript so that it starts in any runtime; it loads
// the TypeScript sources through tsx.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { operationsFromSpec, parseSpec } = await import('./index.ts');
parentPort.on('message', ({ id, text, format }) => {
  try {
    const result = operationsFromSpec(parseSpec(text, format));
    parentPort.postMessage({ id, ok: true, result });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, name: error?.name ?? 'Error', message: error?.message ?? String(error) });
  }
});
parentPort.postMessage({ ready: true });
