import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const work = mkdtempSync(join(tmpdir(), 'kb-reindex-'));
const docs = join(work, 'docs');
const dataDir = join(work, 'store');
afterAll(() => rmSync(work, { recursive: true, force: true }));
mkdirSync(docs);
writeFileSync(join(docs, 'a.md'), '# Alpha\n\nThe alpha release notes.\n');
writeFileSync(join(docs, 'b.md'), '# Beta\n\nThe beta feature flags.\n');

function run(script: string, args: string[], env: Record<string, string> = {}, stopAfterMs?: number) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', KB_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = stopAfterMs ? setTimeout(() => child.kill('SIGTERM'), stopAfterMs) : undefined;
    child.on('exit', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
const kb = (args: string[], env?: Record<string, string>) => run('packages/cli/src/main.ts', args, env);

describe('embedding model changes', () => {
  it('the server refuses a store made with another embedder, naming the fix; kb reindex fixes it', async () => {
    const loaded = await kb(['ingest-folder', docs]);
    expect(loaded.code, loaded.stderr).toBe(0);

    const refused = await run('apps/server/src/main.ts', [], { KB_EMBEDDING_DIM: '256', PORT: '0', HOST: '127.0.0.1' }, 20_000);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('pnpm kb reindex');
    expect(refused.stdout + refused.stderr).toContain('256 dimensions');

    const reindexed = await kb(['reindex'], { KB_EMBEDDING_DIM: '256' });
    expect(reindexed.code, reindexed.stderr).toBe(0);
    expect(reindexed.stdout).toMatch(/Done: 2 chunks re-embedded with local-lexical-v1-256 \(256 dimensions\)/);
    const again = await kb(['reindex'], { KB_EMBEDDING_DIM: '256' });
    expect(again.stdout).toContain('nothing to do');

    // The server now starts with the new embedder (and is stopped after its first seconds).
    const started = await run('apps/server/src/main.ts', [], { KB_EMBEDDING_DIM: '256', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }, 6_000);
    expect(started.stdout).toContain('knowledge base service listening');
    expect(started.code).toBe(0);
  });
});
