import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateRuns, loadBeir, mrrAtK, ndcgAtK, parseQrels, recallAtK } from './metrics.ts';

const judged = new Map([
  ['d1', 1],
  ['d2', 1],
]);

describe('ranking metrics', () => {
  it('nDCG@k with binary grades', () => {
    // relevant at ranks 2 and 4: DCG = 1/log2(3) + 1/log2(5); IDCG = 1 + 1/log2(3)
    const dcg = 1 / Math.log2(3) + 1 / Math.log2(5);
    const idcg = 1 + 1 / Math.log2(3);
    expect(ndcgAtK(['x', 'd1', 'y', 'd2'], judged, 10)).toBeCloseTo(dcg / idcg, 12);
    expect(ndcgAtK(['d1', 'd2'], judged, 10)).toBeCloseTo(1, 12);
    expect(ndcgAtK(['x', 'y'], judged, 10)).toBe(0);
    // cut-off: d2 at rank 4 falls outside @3
    expect(ndcgAtK(['x', 'd1', 'y', 'd2'], judged, 3)).toBeCloseTo(1 / Math.log2(3) / idcg, 12);
  });

  it('nDCG@k with graded relevance uses linear gains and the ideal order', () => {
    const graded = new Map([
      ['a', 2],
      ['b', 1],
      ['c', 0],
    ]);
    // ranking b, a: DCG = 1 + 2/log2(3); ideal a, b: 2 + 1/log2(3)
    expect(ndcgAtK(['b', 'a'], graded, 10)).toBeCloseTo((1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3)), 12);
    // the ideal is truncated at k too
    expect(ndcgAtK(['b'], graded, 1)).toBeCloseTo(1 / 2, 12);
  });

  it('ignores repeated hits', () => {
    expect(ndcgAtK(['d1', 'd1'], judged, 10)).toBeCloseTo(1 / (1 + 1 / Math.log2(3)), 12);
  });

  it('Recall@k and MRR@k', () => {
    expect(recallAtK(['x', 'd1', 'y', 'd2'], judged, 3)).toBe(0.5);
    expect(recallAtK(['x', 'd1', 'y', 'd2'], judged, 4)).toBe(1);
    expect(recallAtK(['d1', 'd1'], judged, 4)).toBe(0.5);
    expect(mrrAtK(['x', 'y', 'd2'], judged, 10)).toBeCloseTo(1 / 3, 12);
    expect(mrrAtK(['x', 'y', 'd2'], judged, 2)).toBe(0);
  });

  it('averages over judged queries; a missing run scores 0', () => {
    const qrels = new Map([
      ['q1', new Map([['d1', 1]])],
      ['q2', new Map([['d9', 1]])],
      ['q3', new Map([['d5', 0]])], // no relevant document: skipped
    ]);
    const summary = evaluateRuns(new Map([['q1', ['d1']]]), qrels, 10);
    expect(summary.queries).toBe(2);
    expect(summary.ndcg).toBeCloseTo(0.5, 12);
    expect(summary.recall).toBeCloseTo(0.5, 12);
    expect(summary.mrr).toBeCloseTo(0.5, 12);
    expect(summary.perQueryNdcg.get('q2')).toBe(0);
  });
});

describe('BEIR loading', () => {
  it('parses qrels with a header and CRLF line endings', () => {
    const qrels = parseQrels('query-id\tcorpus-id\tscore\r\n1\t10\t1\r\n1\t11\t2\r\n2\t10\t0\r\n');
    expect(qrels.get('1')).toEqual(
      new Map([
        ['10', 1],
        ['11', 2],
      ]),
    );
    expect(qrels.get('2')).toEqual(new Map([['10', 0]]));
    expect(qrels.size).toBe(2);
  });

  it('loads a dataset folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beir-'));
    try {
      await mkdir(join(dir, 'qrels'));
      await writeFile(
        join(dir, 'corpus.jsonl'),
        '{"_id": "d1", "title": "T1", "text": "one"}\r\n{"_id": "d2", "title": "", "text": "two"}\r\n',
      );
      await writeFile(join(dir, 'queries.jsonl'), '{"_id": "q1", "text": "first?"}\n\n');
      await writeFile(join(dir, 'qrels', 'dev.tsv'), 'query-id\tcorpus-id\tscore\nq1\td2\t1\n');
      const data = await loadBeir(dir, 'dev');
      expect(data.corpus).toEqual([
        { id: 'd1', title: 'T1', text: 'one' },
        { id: 'd2', title: '', text: 'two' },
      ]);
      expect(data.queries).toEqual(new Map([['q1', 'first?']]));
      expect(data.qrels.get('q1')?.get('d2')).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
