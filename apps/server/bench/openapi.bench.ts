/**
 * OpenAPI ingestion over real HTTP: the Stripe spec (../shared/corpus/openapi/stripe/spec3.yaml,
 * 4.2 MB of YAML, 468 operations) posted to a running service with the built-in embedder.
 * Prints the first post, an unchanged re-post, and the longest event-loop stall seen by a
 * /healthz probe every 50 ms during the first post.
 *
 *   pnpm exec tsx bench/openapi.bench.ts [--store=postgres|pglite] [--spec=path]
 *
 * With --corpus=<dir>, posts every .json/.yaml/.yml file under the directory once, into one
 * store, and prints each answer's status, time, longest /healthz wait and the start of its body
 * (every file must be ingested or refused with a clear 400).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@kb/config';
import { createLogger } from '@kb/core';
import { createEmptyPostgresDatabase } from '@kb/db/testing';
import { startService } from '../src/app.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'postgres' },
    spec: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus/openapi/stripe/spec3.yaml') },
    corpus: { type: 'string' },
  },
});

const dataDir = await mkdtemp(join(tmpdir(), 'kb-bench-'));
const database = values.store === 'postgres' ? await createEmptyPostgresDatabase() : undefined;
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  KB_DATA_DIR: dataDir,
  ...(database ? { DATABASE_URL: database.url } : {}),
});
const service = await startService(config, { logger: createLogger({ level: 'silent' }) });
const { key } = await service.services.keys.create({ label: 'bench' });

async function post(body: string, contentType: string): Promise<{ ms: number; status: number; body: unknown; stallMs: number }> {
  let stallMs = 0;
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const start = performance.now();
      await fetch(`${service.url}/healthz`);
      stallMs = Math.max(stallMs, performance.now() - start);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const start = performance.now();
  const res = await fetch(`${service.url}/api/v1/ingest/openapi`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
    body,
  });
  const answer = await res.json();
  const ms = performance.now() - start;
  probing = false;
  await probe;
  return { ms, status: res.status, body: answer, stallMs };
}

async function postSpec(): Promise<void> {
  const spec = await readFile(values.spec, 'utf8');
  console.log(`${values.spec}: ${(spec.length / 1e6).toFixed(1)} MB; store: ${values.store}`);
  for (const label of ['first post', 'unchanged re-post']) {
    const result = await post(spec, 'application/yaml');
    if (result.status !== 200) throw new Error(`POST answered ${result.status}: ${JSON.stringify(result.body)}`);
    console.log(`${label}: ${(result.ms / 1000).toFixed(1)} s ${JSON.stringify(result.body)}; longest /healthz wait ${result.stallMs.toFixed(0)} ms`);
  }
}

async function postCorpus(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && /\.(json|ya?ml)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  console.log(`${dir}: ${files.length} files; store: ${values.store}`);
  let longest = 0;
  for (const file of files) {
    const result = await post(await readFile(file, 'utf8'), file.endsWith('.json') ? 'application/json' : 'application/yaml');
    longest = Math.max(longest, result.stallMs);
    const answer = JSON.stringify(result.body).slice(0, 140);
    console.log(`${result.status} ${(result.ms / 1000).toFixed(1)} s, /healthz ${result.stallMs.toFixed(0)} ms  ${file.slice(dir.length + 1)}  ${answer}`);
  }
  console.log(`longest /healthz wait ${longest.toFixed(0)} ms`);
}

try {
  if (values.corpus) await postCorpus(values.corpus);
  else await postSpec();
} finally {
  await service.stop(1_000);
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
