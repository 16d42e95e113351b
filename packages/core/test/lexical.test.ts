import { createLogger } from '@kb/core';
import { createTestDatabase, testStoreKinds, type TestDatabase } from '@kb/db/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { IngestionService } from '../src/ingestion/ingestion.service.ts';
import { hybridQueryTokens } from '../src/search/hybrid.ts';
import { rocchio } from '../src/search/prf.ts';
import { SearchRepository, type ScoredHit } from '../src/search/search.repository.ts';
import { prng } from './fakes/fake-confluence.ts';

const kinds = await testStoreKinds();

/**
 * Documents over a small vocabulary with very uneven word frequencies: a few words occur in most
 * chunks, most in a handful, so queries mix rare and common terms.
 */
function corpus(count: number): Array<{ title: string; slug: string; content: string }> {
  const random = prng(7);
  const vocabulary = Array.from({ length: 120 }, (_, i) => `term${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`);
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length * random() ** 3))]!;
  return Array.from({ length: count }, (_, d) => ({
    title: `Document ${d}`,
    slug: `doc-${d}`,
    // Some chunks hold a hyphenated compound, which the index keeps as one lexeme and its parts.
    content: Array.from({ length: 3 }, (_, s) => `## Part ${s}\n\n${Array.from({ length: 10 + Math.floor(random() * 40) }, word).join(' ')}${(d + s) % 7 === 0 ? ' day-old samples' : ''}.`).join('\n\n'),
  }));
}

describe.each(kinds)('lexical ranking on %s', (kind) => {
  let store: TestDatabase;
  let repository: SearchRepository;

  beforeAll(async () => {
    store = await createTestDatabase(kind);
    const ingestion = new IngestionService(store.database, new LocalEmbedder(), createLogger({ level: 'silent' }));
    // In "wiki": the rarest term of "quixotic rhubarb" once in long chunks, the other term often in
    // a short one, so the ranking's best hits change after its first round.
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler${i % 9}x`).join(' ');
    const wiki = [
      { title: 'Long one', slug: 'long-one', content: `quixotic ${filler(120)}.` },
      { title: 'Long two', slug: 'long-two', content: `${filler(100)} quixotic ${filler(30)}.` },
      { title: 'Short', slug: 'short', content: 'rhubarb rhubarb rhubarb rhubarb rhubarb.' },
      { title: 'Other', slug: 'other', content: `rhubarb ${filler(20)}.` },
      { title: 'Third', slug: 'third', content: `rhubarb ${filler(40)} rhubarb.` },
    ].map((d) => ({ namespace: 'wiki' as const, ...d }));
    for (const result of await ingestion.ingestMany([...corpus(80).map((d) => ({ namespace: 'user_docs' as const, ...d })), ...wiki])) {
      if (result instanceof Error) throw result;
    }
    repository = new SearchRepository(store.database);
  }, 60_000);
  afterAll(() => store?.drop());

  it('reads term frequencies from ts_rank exactly as unnesting the tsvector does', async () => {
    const rows = await sql<{ k: number; unnested: number; ranked: number }>`
      with v as (
        select k, to_tsvector('english', repeat('zebra ', k) || 'other words') as tsv from generate_series(0, 300) as k
      )
      select k,
             coalesce((select array_length(positions, 1) from unnest(tsv) where lexeme = 'zebra'), 0) as unnested,
             round(1 / (1.6449340668482264 - 16.449340668482264 * ts_rank(tsv, to_tsquery('simple', 'zebra'))::float8) - 0.5) as ranked
      from v`.execute(store.database.db);
    expect(rows.rows).toHaveLength(301);
    for (const row of rows.rows) expect(Number(row.ranked)).toBe(Number(row.unnested));
  });

  it('returns what scoring every candidate returns when it scores in rounds', async () => {
    const queries = ['termaax termbbx', 'termzdx termaax', 'termqcx termabx termacx', 'termabx', 'termmax termnax termoax termaax termbax', 'day-old termbax'];
    let rounds = 0;
    for (const query of queries) {
      const all = await repository.lexical(query, null, 10, [], Number.POSITIVE_INFINITY);
      const bounded = await repository.lexical(query, null, 10, [], 1);
      expect(bounded.hits.map((h) => [h.chunkId, h.raw.toFixed(9)])).toEqual(all.hits.map((h) => [h.chunkId, h.raw.toFixed(9)]));
      expect(all.hits.length).toBeGreaterThan(0);
      rounds++;
    }
    expect(rounds).toBe(queries.length);
  });

  it.each(['termzdx termaax termbbx', 'day-old termaax'])('scores each hit of "%s" as BM25 computed from the unnested tsvectors', async (query) => {
    const { hits } = await repository.lexical(query, null, 10);
    expect(hits.length).toBeGreaterThan(3);
    if (query.startsWith('day-old')) expect(hits[0]!.content).toContain('day-old');
    const { n, avgdl } = await repository.corpusStats();
    const expected = await sql<{ id: string; score: number }>`
      with q as (select lexeme as term from unnest(to_tsvector('english', ${query}))),
      w as (
        select term, ln(1 + (${n}::float8 - df + 0.5) / (df + 0.5)) as idf
        from (
          select term, (select count(*) from chunks c where exists (select 1 from unnest(c.search_tsv) u where u.lexeme = q.term))::float8 as df
          from q
        ) t
      )
      select c.id, sum(w.idf * (u.tf * 1.9) / (u.tf + 0.9 * (0.6 + 0.4 * c.token_count / ${avgdl}::float8))) as score
      from chunks c
      cross join lateral (select lexeme, array_length(positions, 1)::float8 as tf from unnest(c.search_tsv)) u
      join w on w.term = u.lexeme
      where c.id = any(${hits.map((h) => h.chunkId)}::uuid[])
      group by c.id`.execute(store.database.db);
    const byId = new Map(expected.rows.map((r) => [r.id, Number(r.score)]));
    for (const hit of hits) expect(hit.raw).toBeCloseTo(byId.get(hit.chunkId)!, 9);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.raw).toBeLessThanOrEqual(hits[i - 1]!.raw);
  });

  const described = (hits: readonly ScoredHit[]) => hits.map(({ raw: _raw, ...hit }) => hit);

  it.each([
    { query: 'termzdx termaax termbbx', namespaces: null, budget: undefined },
    // One term a round: the first round does not settle the ranking, later rounds follow it.
    { query: 'termmax termnax termoax termaax termbax', namespaces: null, budget: 1 },
    { query: 'day-old termbax', namespaces: ['user_docs'], budget: undefined },
    // The first round's best hits are not the ranking's: the feedback and vector ranking follow it.
    { query: 'quixotic rhubarb', namespaces: ['wiki'], budget: 1 },
    { query: 'termqcx termabx termacx', namespaces: ['tech_docs'], budget: undefined },
    // Feedback weighed otherwise, or pushed away from the lexical hits.
    { query: 'termzdx termaax termbbx', namespaces: null, budget: undefined, beta: 0.5 },
    { query: 'termzdx termaax termbbx', namespaces: null, budget: undefined, beta: -1 },
    { query: 'termzdx termaax termbbx', namespaces: null, budget: undefined, beta: 0 },
  ])('reads the hybrid candidates of "$query" ($namespaces, budget $budget, beta $beta) as the lexical ranking, its feedback and the vector ranking do', async ({ query, namespaces, budget, beta = 1 }) => {
    const [vector] = await new LocalEmbedder().embed([query], 'query');
    const words = hybridQueryTokens(query);
    const together = await repository.hybridCandidates({ query, words, vector: vector!, namespaces, depth: 12, feedbackDocs: 3, feedbackBeta: beta, candidateBudget: budget });
    const lexical = await repository.lexical(query, namespaces, 12, words, budget);
    const feedback = await repository.vectors(lexical.hits.slice(0, 3).map((h) => h.chunkId));
    const nearest = await repository.nearest(rocchio(vector!, feedback, beta), namespaces, 12);
    expect(described(together.lexical)).toEqual(described(lexical.hits));
    together.lexical.forEach((hit, i) => expect(hit.raw).toBeCloseTo(lexical.hits[i]!.raw, 9));
    expect(together.wordFrequencies).toEqual(lexical.wordFrequencies);
    // The feedback vector is summed in single precision by the database, in double by rocchio().
    expect(described(together.nearest)).toEqual(described(nearest));
    together.nearest.forEach((hit, i) => expect(hit.raw).toBeCloseTo(nearest[i]!.raw, 5));
    if (namespaces?.[0] === 'tech_docs') {
      expect(together.lexical).toEqual([]);
      expect(together.nearest).toEqual([]);
    } else {
      expect(together.lexical.length).toBeGreaterThan(namespaces?.[0] === 'wiki' ? 2 : 3);
      expect(together.nearest).toHaveLength(namespaces?.[0] === 'wiki' ? 5 : 12);
    }
  });

  it('scores at most its limit of chunks when the rarest word is in more, the chunks holding the rarest words together, each as exact BM25', async () => {
    // Two words each in more chunks than the limit, found together in a few.
    const limit = 10;
    const pair = (
      await sql<{ first: string; second: string; together: string }>`
        select a.term as first, b.term as second,
               (select count(*) from chunks c where c.search_tsv @@ (quote_literal(a.term) || ' & ' || quote_literal(b.term))::tsquery) as together
        from term_stats a join term_stats b on a.term < b.term
        where a.chunks between ${limit + 5} and 45 and b.chunks between ${limit + 5} and 45
        order by together desc, a.term, b.term
        limit 1`.execute(store.database.db)
    ).rows[0]!;
    expect(Number(pair.together)).toBeGreaterThanOrEqual(3);
    const query = `${pair.first} ${pair.second}`;
    const [vector] = await new LocalEmbedder().embed([query], 'query');
    const input = { query, words: [], vector: vector!, namespaces: null, depth: 40, feedbackDocs: 3, feedbackBeta: 1 };
    const limited = await new SearchRepository(store.database, { lexicalCandidates: limit }).hybridCandidates(input);
    expect(limited.lexical.length).toBeGreaterThanOrEqual(3);
    expect(limited.lexical.length).toBeLessThanOrEqual(limit);
    const exact = new Map((await repository.lexical(query, null, 1_000)).hits.map((h) => [h.chunkId, h.raw]));
    for (const hit of limited.lexical) {
      const held = await sql<{ both: boolean }>`
        select c.search_tsv @@ (quote_literal(${pair.first}::text) || ' & ' || quote_literal(${pair.second}::text))::tsquery as both
        from chunks c where c.id = ${hit.chunkId}`.execute(store.database.db);
      expect(held.rows[0]!.both).toBe(true);
      expect(hit.raw).toBeCloseTo(exact.get(hit.chunkId)!, 9);
    }
    // Without a limit, the ranking is the exact one over every chunk holding either word.
    const unlimited = await new SearchRepository(store.database, { lexicalCandidates: 0 }).hybridCandidates(input);
    expect(described(unlimited.lexical)).toEqual(described((await repository.lexical(query, null, 40)).hits));
    expect(unlimited.lexical.length).toBeGreaterThan(limit);
  });

  it('stops its rounds before they read more chunks in all than its limit', async () => {
    // "quixotic" is in 2 chunks, "rhubarb" in 3: one term a round (budget 1), the second round
    // reads 3 more chunks, within a limit of 5, past a limit of 4.
    const query = 'quixotic rhubarb';
    const [vector] = await new LocalEmbedder().embed([query], 'query');
    const input = { query, words: [], vector: vector!, namespaces: ['wiki'], depth: 12, feedbackDocs: 3, feedbackBeta: 1, candidateBudget: 1 };
    const holds = (hits: readonly ScoredHit[], word: string) => hits.filter((h) => h.content.includes(word)).length;
    const within = await new SearchRepository(store.database, { lexicalCandidates: 5 }).hybridCandidates(input);
    expect(described(within.lexical)).toEqual(described((await repository.lexical(query, ['wiki'], 12, [], 1)).hits));
    expect(holds(within.lexical, 'rhubarb')).toBe(3);
    const past = await new SearchRepository(store.database, { lexicalCandidates: 4 }).hybridCandidates(input);
    expect(holds(past.lexical, 'quixotic')).toBe(2);
    expect(holds(past.lexical, 'rhubarb')).toBe(0);
  });
});
