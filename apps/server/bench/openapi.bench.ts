/**
 * OpenAPI ingestion over real HTTP: the Stripe spec (../shared/corpus/openapi/stripe/spec3.yaml,
 * 4.2 MB of YAML, 468 operations) posted to a running service with the built-in embedder.
 * Prints the first post, an unchanged re-post, and the longest event-loop stall seen by a
 * /healthz probe every 50 ms during the first post.
 *
 *   pnpm exec tsx bench/openapi.bench.ts [--store=postgres|pglite] [--spec=path]
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
  },
});

const spec = await readFile(values.spec, 'utf8');
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

async function post(): Promise<{ ms: number; body: unknown; stallMs: number }> {
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
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/yaml' },
    body: spec,
  });
  const body = await res.json();
  const ms = performance.now() - start;
  probing = false;
  await probe;
  if (res.status !== 200) throw new Error(`POST answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, body, stallMs };
}

try {
  console.log(`${values.spec}: ${(spec.length / 1e6).toFixed(1)} MB; store: ${values.store}`);
  const first = await post();
  console.log(`first post: ${(first.ms / 1000).toFixed(1)} s ${JSON.stringify(first.body)}; longest /healthz wait ${first.stallMs.toFixed(0)} ms`);
  const again = await post();
  console.log(`unchanged re-post: ${(again.ms / 1000).toFixed(1)} s ${JSON.stringify(again.body)}; longest /healthz wait ${again.stallMs.toFixed(0)} ms`);
} finally {
  await service.stop(1_000);
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
