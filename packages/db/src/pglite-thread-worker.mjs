// Runs an embedded store's PGlite database on a thread of its own (see pglite-thread.ts). Plain
// JavaScript: it needs nothing but PGlite, so it starts in any runtime without a loader.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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
  // Starting PGlite leaves its WebAssembly and file bundles (about 15 MB) and a grown young
  // generation as garbage that an idle thread would keep: as @kb/content's collectStartupGarbage
  // (which this plain script cannot import), for its first minute, every 6 s, a young generation
  // over 8 MB gets one full collection (V8 shrinks it at one made while the thread allocates little).
  const collect = () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    setFlagsFromString('--no-expose-gc');
    gc();
  };
  let checks = 0;
  const timer = setInterval(() => {
    checks += 1;
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size ?? 0;
    if (young > 8 * 1024 * 1024) {
      collect();
    } else {
      clearInterval(timer);
    }
    if (checks >= 10) clearInterval(timer);
  }, 6_000);
  timer.unref();
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
