// Parses and renders specs, and splits and embeds documents for the built-in embedder, off the
// server's thread (see off-thread.ts), one request at a time, for as long as the worker lives.
// Plain JavaScript so that it starts in any runtime; it loads the TypeScript sources through tsx.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { operationsFromSpec, parseSpec } = await import('./index.ts');
const { prepareDocuments } = await import('../ingestion/prepare.ts');

function failure(id, error) {
  return { id, ok: false, name: error?.name ?? 'Error', message: error?.message ?? String(error) };
}

parentPort.on('message', (request) => {
  if (request.kind === 'prepare') {
    try {
      const result = prepareDocuments(request.documents, request.dimension);
      parentPort.postMessage({ id: request.id, ok: true, result }, [result.vectors.buffer]);
    } catch (error) {
      parentPort.postMessage(failure(request.id, error));
    }
    return;
  }
  try {
    const result = operationsFromSpec(parseSpec(request.text, request.format));
    parentPort.postMessage({ id: request.id, ok: true, result });
  } catch (error) {
    parentPort.postMessage(failure(request.id, error));
  }
});
parentPort.postMessage({ ready: true });
