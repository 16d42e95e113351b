// Runs an embedded store's PGlite database on a thread of its own (see pglite-thread.ts). Plain
// JavaScript: it needs nothing but PGlite, so it starts in any runtime without a loader.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

/** The fields of a PostgreSQL error that callers may read (code: SQLSTATE). */
const ERROR_FIELDS = ['code', 'severity', 'detail', 'hint', 'position', 'where', 'schema', 'table', 'column', 'dataType', 'constraint'];

function describe(error) {
  const out = { name: error?.name ?? 'Error', message: error?.message ?? String(error) };
  for (const field of ERROR_FIELDS) if (error?.[field] !== undefined) out[field] = error[field];
  return out;
}

let pglite;
try {
  pglite = await PGlite.create(workerData.dataDir, { extensions: { vector }, ...(workerData.startParams ? { startParams: workerData.startParams } : {}) });
} catch (error) {
  parentPort.postMessage({ started: false, error: describe(error) });
}

if (pglite) {
  parentPort.on('message', async (request) => {
    if (request.close) {
      try {
        await pglite.close();
        parentPort.postMessage({ id: request.id, rows: [] });
      } catch (error) {
        parentPort.postMessage({ id: request.id, error: describe(error) });
      }
      parentPort.close();
      return;
    }
    try {
      const result = await pglite.query(request.sql, request.params, { rowMode: 'object' });
      parentPort.postMessage({ id: request.id, rows: result.rows, affectedRows: result.affectedRows });
    } catch (error) {
      parentPort.postMessage({ id: request.id, error: describe(error) });
    }
  });
  parentPort.postMessage({ started: true });
}
