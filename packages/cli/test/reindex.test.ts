import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedEmbeddedStore } from '@kb/db/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from './process.ts';

const work = mkdtempSync(join(tmpdir(), 'kb-reindex-'));
const docs = join(work, 'docs');
const dataDir = join(work, 'store');
await seedEmbeddedStore(dataDir);
afterAll(() => rmSync(work, { recursive: true, force: true }));
mkdirSync(docs);
writeFileSync(join(docs, 'a.md'), '# Alpha\n\nThe alpha release notes.\n');
writeFileSync(join(docs, 'b.md'), '# Beta\n\nThe beta feature flags.\n');

const base = { KB_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
const server = (env: Record<string, string>, stopAfterMs: number, stopOnOutput?: string) => run('apps/server/src/main.ts', [], { ...base, ...env }, stopAfterMs, stopOnOutput);
const kb = (args: string[], env: Record<string, string> = {}) => run('packages/cli/src/main.ts', args, { ...base, ...env });

describe('embedding model changes', () => {
  it('the server refuses a store made with another embedder, naming the fix; kb reindex fixes it', async () => {
    const loaded = await kb(['ingest-folder', docs]);
    expect(loaded.code, loaded.stderr).toBe(0);

    // The server exits on its own; the stop is a guard against a hang, as long as a busy machine's start-up can take.
    const refused = await server({ KB_EMBEDDING_DIM: '256', PORT: '0', HOST: '127.0.0.1' }, 180_000);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('pnpm kb reindex');
    expect(refused.stdout + refused.stderr).toContain('256 dimensions');

    const reindexed = await kb(['reindex'], { KB_EMBEDDING_DIM: '256' });
    expect(reindexed.code, reindexed.stderr).toBe(0);
    expect(reindexed.stdout).toMatch(/Done: 2 chunks re-embedded with local-lexical-v1-256 \(256 dimensions\)/);
    const again = await kb(['reindex'], { KB_EMBEDDING_DIM: '256' });
    expect(again.stdout).toContain('nothing to do');

    // The server now starts with the new embedder (and is stopped once it listens).
    const started = await server({ KB_EMBEDDING_DIM: '256', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }, 180_000, 'knowledge base service listening');
    expect(started.stdout).toContain('knowledge base service listening');
    expect(started.code).toBe(0);
    // Five processes, each opening the on-disk store (several seconds apiece on a slow machine).
  }, 600_000);
});
