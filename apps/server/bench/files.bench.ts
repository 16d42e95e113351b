/**
 * File ingestion: PDF pages ingested per second over HTTP (POST /ingest/file: upload, conversion
 * in the files worker, splitting, embedding, writing) against pages whose text the same library
 * (unpdf) extracts per second in the same process, and the process's resident memory while a
 * 500-page PDF is ingested. Figures are ratios within one run (docs/benchmarks.md).
 *
 *   tsx bench/files.bench.ts [--store=pglite|postgres] [--pages=200]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@kb/config';
import { stopWorkerPool } from '@kb/content';
import { pdfKitPdf, pdfLibPdf, pdfTextAlone } from '@kb/content/testing';
import { createLogger } from '@kb/core';
import { createEmptyPostgresDatabase } from '@kb/db/testing';
import { startService } from '../src/app.ts';

const { values } = parseArgs({ options: { store: { type: 'string', default: 'pglite' }, pages: { type: 'string', default: '200' } } });
const pages = Number(values.pages);

const dataDir = await mkdtemp(join(tmpdir(), 'kb-bench-files-'));
const database = values.store === 'postgres' ? await createEmptyPostgresDatabase() : undefined;
const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', KB_DATA_DIR: dataDir, KB_MAX_FILE_BYTES: String(64 * 1024 * 1024), ...(database ? { DATABASE_URL: database.url } : {}) });
const service = await startService(config, { logger: createLogger({ level: 'silent' }) });
const { key } = await service.services.keys.create({ label: 'bench' });

const post = (bytes: Uint8Array, name: string) =>
  fetch(`${service.url}/api/v1/ingest/file?namespace=user_docs&filename=${name}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/pdf' }, body: bytes }).then(async (res) => {
    if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { pages: number };
  });

const set = [
  { name: 'pdf-lib.pdf', bytes: await pdfLibPdf(pages) },
  { name: 'pdfkit.pdf', bytes: await pdfKitPdf(pages) },
];
const total = set.length * pages;

// Warm both paths once (the worker's start, the parsers' load) on a small file.
await pdfTextAlone(await pdfLibPdf(2));
await post(await pdfLibPdf(2), 'warm.pdf');

let started = performance.now();
for (const file of set) await pdfTextAlone(file.bytes);
const aloneMs = performance.now() - started;

started = performance.now();
for (const file of set) await post(file.bytes, file.name);
const ingestMs = performance.now() - started;

const alone = total / (aloneMs / 1000);
const ingested = total / (ingestMs / 1000);
console.log(`${total} pages (${set.length} PDFs, ${values.store}): text alone ${alone.toFixed(0)} pages/s, ingested over HTTP ${ingested.toFixed(0)} pages/s: ${(ingested / alone).toFixed(2)} of text extraction`);

// Memory while a 500-page PDF is ingested: the process's resident set, sampled every 50 ms.
const big = await pdfKitPdf(500);
globalThis.gc?.();
const before = process.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
started = performance.now();
const result = await post(big, 'big.pdf');
clearInterval(sampler);
console.log(
  `500-page PDF (${(big.length / 1024 / 1024).toFixed(1)} MB, ${result.pages} pages) ingested in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
    `resident ${Math.round(before / 2 ** 20)} MB before, peak ${Math.round(peak / 2 ** 20)} MB (+${Math.round((peak - before) / 2 ** 20)} MB; the files worker's heap is bounded at 512 MB)`,
);

await service.stop(1_000);
await stopWorkerPool();
await database?.drop();
await rm(dataDir, { recursive: true, force: true });
