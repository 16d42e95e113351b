import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from './process.ts';

const work = mkdtempSync(join(tmpdir(), 'kb-eval-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const jsonl = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

describe('kb eval', () => {
  it('prints nDCG@10, Recall@10 and MRR@10 for BM25, semantic and hybrid search; queries with NULs are read as text; --per-query ranks each', async () => {
    const dir = join(work, 'tiny');
    mkdirSync(join(dir, 'qrels'), { recursive: true });
    writeFileSync(
      join(dir, 'corpus.jsonl'),
      jsonl([
        { _id: 'd1', title: 'Cats', text: 'Cats are small carnivorous mammals kept as pets.' },
        { _id: 'd2', title: 'Volcanoes', text: 'A volcano is a rupture in the crust of a planet through which lava escapes.' },
        { _id: 'd3', title: 'Bread', text: 'Bread is baked from a dough of flour and water, usually with yeast.' },
      ]),
    );
    writeFileSync(
      join(dir, 'queries.jsonl'),
      jsonl([
        { _id: 'q1', text: 'pet mammals like cats' },
        { _id: 'q2', text: 'lava \u0000 escaping the crust' },
        { _id: 'q3', text: 'flour dough yeast' },
      ]),
    );
    writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td3\t1\n');
    const result = await run('packages/cli/src/main.ts', ['eval', dir, '--per-query'], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/\bat .+\.(ts|js):\d+/);
    for (const name of ['bm25', 'semantic', 'hybrid']) {
      expect(result.stdout).toMatch(new RegExp(`^${name}\\s+1\\.0000\\s+1\\.0000\\s+1\\.0000\\s+1\\.000`, 'm'));
    }
    // Each query's judged document is first in every run, and first of the hybrid run's list.
    for (const [query, doc] of [['q1', 'd1'], ['q2', 'd2'], ['q3', 'd3']]) {
      expect(result.stdout).toMatch(new RegExp(`^${query}\\t1\\t1\\t1\\t${doc}( |$)`, 'm'));
    }
  }, 120_000);
});
