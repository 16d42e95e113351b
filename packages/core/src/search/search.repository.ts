import { exactVectorDistance, prepared, shortlistSize, type Database, type DB } from '@kb/db';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { rocchio } from './prf.ts';

export interface ChunkHit {
  chunkId: string;
  documentId: string;
  documentTitle: string;
  /** The document's slug (its key within the namespace). */
  slug: string;
  /** The document's link, when it has one. */
  url?: string;
  headingPath: string;
  content: string;
  namespace: string;
  /** The page of its source the chunk starts on (a PDF's), when it has pages. */
  page?: number;
}

export interface ScoredHit extends ChunkHit {
  /** Cosine distance (vector ranking) or the lexical rank score. */
  raw: number;
  /** The chunker's token count of the chunk. */
  tokenCount: number;
  /** The included fragment the chunk's text comes from, when it is one (for ranking; not shown). */
  fragment?: string;
}

/** Collection statistics of the lexical ranking, read every few seconds. */
export interface CorpusStats {
  /** Chunks in the store. */
  n: number;
  /** Documents that have chunks. */
  documents: number;
  /** Mean token count of a chunk. */
  avgdl: number;
}

const BM25_K1 = 0.9;
const BM25_B = 0.4;
/** Terms in more than this share of chunks do not make candidates on their own. */
const SELECTIVE_FRACTION = 0.2;
const STATS_TTL_MS = 5_000;
/** Chunk frequencies a lexical ranking round may add up to (see SearchRepository.lexical). */
const CANDIDATE_BUDGET = 2_000;
/** The most chunks a hybrid search's lexical ranking scores (see SearchRepository.hybridCandidates). */
export const DEFAULT_LEXICAL_CANDIDATES = 4_000;

/**
 * A lexeme as a tsquery operand. tsquery input takes a quoted operand verbatim, so a lexeme such
 * as "day-old" stays one lexeme (to_tsquery would parse it again into a phrase of its parts and
 * match something else).
 */
function tsqueryOperand(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** {@link tsqueryOperand} in SQL. */
function quotedLexeme(lexeme: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`('''' || replace(replace(${lexeme}, '\\', '\\\\'), '''', '''''') || '''')`;
}

/** {@link tsqueryOperand} in SQL, as a one-lexeme tsquery. */
function lexemeQuery(lexeme: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`${quotedLexeme(lexeme)}::tsquery`;
}

/**
 * How often a one-term tsquery's lexeme occurs in a tsvector, computed by PostgreSQL's C code
 * instead of unnesting the tsvector (several times faster per chunk). For one term whose
 * positions all have the default weight (to_tsvector gives D, 0.1), ts_rank is
 * 0.1 × (1 + 1/2² + ... + 1/tf²) / (π²/6), and 1 / (π²/6 − Σ_{j≤tf} 1/j²) ≈ tf + 0.5, so rounding
 * recovers tf exactly (0 when the lexeme is absent; tested against unnest for 0-300 occurrences,
 * of which a tsvector keeps at most 255 positions).
 */
function termFrequency(tsvector: RawBuilder<unknown>, tsquery: RawBuilder<unknown>): RawBuilder<number> {
  return sql<number>`round(1 / (1.6449340668482264 - 16.449340668482264 * ts_rank(${tsvector}, ${tsquery})::float8) - 0.5)`;
}

/** A hit as read, its `url`, `page` and `fragment` left out when null. */
function withoutNulls<T extends { url?: string | null; page?: number | null; fragment?: string | null }>(
  row: T,
): T & { url?: string; page?: number; fragment?: string } {
  const { url, page, fragment, ...rest } = row;
  return {
    ...rest,
    ...(url === null || url === undefined ? {} : { url }),
    ...(page === null || page === undefined ? {} : { page }),
    ...(fragment === null || fragment === undefined ? {} : { fragment }),
  } as T & { url?: string; page?: number; fragment?: string };
}

/** A query's terms for BM25: those the index holds, weighted, and the ones that make candidates. */
interface LexicalPlan {
  /** The query's terms found in some chunk, with their chunk frequency and BM25 weight. */
  terms: Array<{ term: string; df: number; idf: number }>;
  /** The terms whose chunks are candidates (the selective ones, or all), rarest first. */
  candidates: Array<{ term: string; df: number }>;
}

/** BM25 weight of a term found in `df` of `n` chunks (Lucene's IDF). */
function bm25Idf(df: number, n: number): number {
  return Math.log(1 + (Math.max(n, df) - df + 0.5) / (df + 0.5));
}

function lexicalPlan(frequencies: ReadonlyArray<{ term: string; df: number }>, n: number): LexicalPlan {
  const terms = frequencies.filter((t) => t.df > 0).map((t) => ({ term: t.term, df: t.df, idf: bm25Idf(t.df, n) }));
  const selective = terms.filter((t) => t.df <= n * SELECTIVE_FRACTION);
  const candidates = (selective.length > 0 ? selective : terms).slice().sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1));
  return { terms, candidates };
}

/** Hits of two lists merged, best first (ties by id), at most `limit`. */
function bestHits(a: readonly ScoredHit[], b: readonly ScoredHit[], limit: number): ScoredHit[] {
  return [...a, ...b].sort((x, y) => y.raw - x.raw || (x.chunkId < y.chunkId ? -1 : 1)).slice(0, limit);
}

/** What {@link SearchRepository.hybridCandidates} reads for a hybrid search. */
export interface HybridCandidates {
  /**
   * The candidates as rescored in the statement (see {@link HybridRescoring}), when it was asked
   * to and could: then `lexical` and `nearest` are empty, and the texts read are the results'.
   */
  ranked?: { hits: RankedChunkHit[]; bestSimilarity: number | null };
  /** The best `depth` chunks by BM25, best first (`raw`: the score). */
  lexical: ScoredHit[];
  /** The best `depth` chunks by cosine with the feedback-moved query vector, nearest first (`raw`: the distance). */
  nearest: ScoredHit[];
  /** Chunk frequencies of the words asked for (see {@link SearchRepository.lexical}). */
  wordFrequencies: Map<string, number>;
}

/**
 * How {@link SearchRepository.hybridCandidates} rescores its candidates in the statement: the
 * parameters of hybridRank (hybrid.ts), whose results the statement's are.
 */
export interface HybridRescoring {
  /** The query's terms as hybridRank weighs them, in its order, with the raw tokens giving their IDF. */
  terms: ReadonlyArray<{ term: string; tokens: readonly string[] }>;
  k1: number;
  b: number;
  weights: { chunk: number; document: number; vector: number };
  /** Hits to return, best first. */
  limit: number;
  /** Drop candidates that hold no term of the query. */
  requireTerm: boolean;
}

/** A hit ranked by the statement, its fused score in 0..1 (as hybridRank's), and its chunk's fragment as in {@link ScoredHit}. */
export type RankedChunkHit = ChunkHit & { score: number; fragment?: string };

interface HybridStatementRow {
  capped: boolean;
  terms: Array<{ term: string; df: number; inQuery: boolean; inRound: boolean }>;
  words: Record<string, number>;
  hits: Array<
    Omit<ScoredHit, 'raw' | 'url' | 'page' | 'fragment'> & {
      url: string | null;
      page: number | null;
      fragment: string | null;
      score: number | null;
      distance: number | null;
    }
  > | null;
  ranked?: Array<
    Omit<RankedChunkHit, 'url' | 'page' | 'fragment'> & { url: string | null; page: number | null; fragment: string | null; tokenCount: number }
  > | null;
  bestSimilarity?: number | null;
}

export interface SearchRepositoryOptions {
  exact?: boolean;
  lexicalCandidates?: number;
}

export class SearchRepository {
  private readonly db: Kysely<DB>;
  private readonly exact: boolean;

  private readonly database: Pick<Database, 'db' | 'vectorParameter' | 'vectorDistance' | 'withVectorSearch'>;

  /** The most chunks a hybrid search's lexical ranking scores (see {@link hybridCandidates}). */
  private readonly lexicalCandidates: number;

  /**
   * `options.exact`: rank by the whole vectors of every chunk, without the index (evaluation).
   * `options.lexicalCandidates`: the most chunks a hybrid search's lexical ranking scores
   * (default 4,000; 0: no limit).
   */
  constructor(database: Pick<Database, 'reads'>, options: SearchRepositoryOptions = {}) {
    // Searches tolerate a replica's lag (docs/deployment.md): they read through the replicas.
    this.database = database.reads;
    this.db = this.database.db;
    this.exact = options.exact ?? false;
    const limit = options.lexicalCandidates ?? DEFAULT_LEXICAL_CANDIDATES;
    this.lexicalCandidates = limit === 0 ? Number.POSITIVE_INFINITY : limit;
  }

  /**
   * The ids and cosine distances of the `limit` nearest child chunks to a query vector (a
   * parameter, or an expression of the statement it is part of) of `dimension` components. The
   * HNSW index serves the ORDER BY ... LIMIT (of a shortlist reranked by the whole vectors when it
   * holds their prefixes, see @kb/db's vector-index.ts); with a namespace filter, iterative index
   * scans keep scanning until the limit's rows match (a plain HNSW scan would filter its first
   * ef_search candidates and return fewer). Run it with {@link Database.withVectorSearch}.
   */
  private nearestIds(queryVector: unknown, dimension: number, namespaces: readonly string[] | null, limit: number): RawBuilder<unknown> {
    const indexed = this.database.vectorDistance(dimension, sql.ref('c.embedding'), queryVector);
    const filter = namespaces ? sql`where c.namespace = any(${[...namespaces]}::text[])` : sql``;
    const shortlist = shortlistSize(dimension, limit);
    // The index holds whole vectors: its order is the answer. It holds their prefixes: its best
    // `shortlist` are reranked by the whole vectors.
    const exact = exactVectorDistance(sql.ref('c.embedding'), queryVector);
    if (this.exact) return sql`select c.id, ${exact} as distance from chunks c ${filter} order by ${exact} limit ${limit}`;
    if (shortlist === null) {
      return sql`
        select c.id, ${indexed} as distance
        from chunks c
        ${filter}
        order by ${indexed}
        limit ${limit}`;
    }
    return sql`
      select s.id, ${exactVectorDistance(sql.ref('s.embedding'), queryVector)} as distance
      from (
        select c.id, c.embedding
        from chunks c
        ${filter}
        order by ${indexed}
        limit ${shortlist}
      ) s
      order by distance
      limit ${limit}`;
  }

  /** Nearest child chunks by cosine distance (see {@link nearestIds}). */
  async nearest(vector: readonly number[], namespaces: readonly string[] | null, limit: number): Promise<ScoredHit[]> {
    // The query vector's length is the store's dimension (the embedder was checked against it).
    const nearest = this.nearestIds(this.database.vectorParameter(vector), vector.length, namespaces, limit);
    const query = (executor: Kysely<DB>) => sql<ScoredHit>`${prepared}
      select c.id as "chunkId", c.document_id as "documentId", d.title as "documentTitle", d.slug, d.url,
             c.heading_path as "headingPath", c.content, c.namespace, c.token_count as "tokenCount", c.page, c.fragment,
             n.distance as raw
      from (${nearest}) n
      join chunks c on c.id = n.id
      join documents d on d.id = c.document_id`.execute(executor);
    // With sequential scans off, or the planner reads and sorts whole small tables (see Database).
    const rows = await this.database.withVectorSearch(query);
    // Iterative scans in relaxed order may return neighbours slightly out of order.
    return rows.rows.map((r) => withoutNulls({ ...r, raw: Number(r.raw) })).sort((a, b) => a.raw - b.raw);
  }

  private stats: (CorpusStats & { at: number }) | undefined;

  /**
   * Chunk and document counts and the mean chunk length for BM25: one row the store keeps as
   * chunks are written and removed (see the corpus_stats migration), read again every few seconds.
   */
  async corpusStats(): Promise<CorpusStats> {
    if (!this.stats || Date.now() - this.stats.at > STATS_TTL_MS) {
      const row = (
        await sql<{ chunks: string; documents: string; tokens: string }>`
          select chunks, documents, tokens from corpus_stats`.execute(this.db)
      ).rows[0];
      const n = Number(row?.chunks ?? 0);
      const avgdl = n > 0 ? Number(row!.tokens) / n : 1;
      this.stats = { n, documents: Number(row?.documents ?? 0), avgdl: avgdl || 1, at: Date.now() };
    }
    return this.stats;
  }

  /**
   * The chunk frequencies of the query's terms as the full-text index analyses the query (kept
   * in term_stats as chunks are written and removed), and of
   * each of `words` analysed on its own (a word the index ignores, one of its stop words, is left
   * out; a word it splits counts as its least frequent part): the CTEs `words` and `frequencies`
   * (term, df, in_query) of a statement.
   */
  private frequencyCtes(query: string, words: readonly string[]): RawBuilder<unknown> {
    return sql`
      words as (
        select word, tsvector_to_array(to_tsvector('english', word)) as lexemes
        from unnest(${[...words]}::text[]) as word
      ),
      query_terms as (
        select lexeme as term from unnest(to_tsvector('english', ${query}))
      ),
      frequencies as materialized (
        select t.term,
               coalesce((select s.chunks from term_stats s where s.term = t.term), 0)::int as df,
               t.term in (select term from query_terms) as in_query
        from (select term from query_terms union select unnest(lexemes) from words) t
      )`;
  }

  /**
   * The BM25 score of chunk `c` against the weighted terms (term, idf, q) of relation `terms`,
   * from the chunk's tsvector as {@link detoasted} reads it (`t.tsv`).
   */
  private static bm25(terms: RawBuilder<unknown>, avgdl: number): RawBuilder<number> {
    return sql<number>`(
      select sum(w.idf * (${BM25_K1 + 1}::float8 - ${BM25_K1 + 1}::float8 * k.k / (${termFrequency(sql`t.tsv`, sql`w.q`)} + k.k)))
      from ${terms} w
      cross join lateral (
        select ${BM25_K1}::float8 * (${1 - BM25_B}::float8 + ${BM25_B}::float8 * c.token_count / ${avgdl}::float8) as k
      ) k
      where t.tsv @@ w.q
    )`;
  }

  /**
   * Chunk `c`'s tsvector read once, as `t.tsv`. A tsvector of a few hundred words is stored out of
   * line (TOAST), and PostgreSQL fetches and decompresses such a value again at every reference,
   * twice a term in {@link bm25}: at 100,000 chunks, 19 buffer reads a candidate for a four-term
   * query against 2.7 reading it once. The concatenation makes an in-memory copy, and OFFSET 0 keeps the
   * subquery from being folded back into each reference.
   */
  private static readonly detoasted = sql`cross join lateral (select c.search_tsv || ''::tsvector as tsv offset 0) t`;

  /** The columns of a hit, from chunk `c` and document `d`. */
  private static readonly hitColumns = sql`
    c.id as "chunkId", c.document_id as "documentId", d.title as "documentTitle", d.slug, d.url,
    c.heading_path as "headingPath", c.content, c.namespace, c.token_count as "tokenCount", c.page, c.fragment`;

  /**
   * BM25 over the full-text index (k1 0.9, b 0.4): each of the query's stemmed terms weighted
   * by its inverse document frequency over all chunks, its frequency in a chunk saturated and
   * normalised by the chunk's length. Candidates are the chunks holding one of the query's
   * selective terms (in at most a fifth of all chunks); a chunk that only holds very common
   * terms cannot outrank them. All terms count towards the score.
   *
   * Candidates are scored in rounds, rarest selective terms first (MaxScore): a round scores the
   * chunks that hold one of its terms and none of an earlier round's; after it, if even a chunk
   * holding every remaining term as often as possible could not beat the `limit`-th score so far,
   * the rest cannot enter the result and are never read. The result is that of scoring every
   * candidate (up to ties at the cut), but a query with a rare and a common word reads the rare
   * word's chunks only.
   *
   * Also returns the chunk frequencies of `words`, each analysed as the index analyses text
   * (see {@link frequencyCtes}), for rescoring the hits with another analysis.
   */
  async lexical(
    query: string,
    namespaces: readonly string[] | null,
    limit: number,
    words: readonly string[] = [],
    candidateBudget = CANDIDATE_BUDGET,
  ): Promise<{ hits: ScoredHit[]; wordFrequencies: Map<string, number> }> {
    const { n, avgdl } = await this.corpusStats();
    if (n === 0) return { hits: [], wordFrequencies: new Map() };
    const rows = (
      await sql<{ term: string; df: number; inQuery: boolean; words: string[] }>`
        with ${this.frequencyCtes(query, words)}
        select f.term, f.df, f.in_query as "inQuery", array(select w.word from words w where f.term = any(w.lexemes)) as words
        from frequencies f`.execute(this.db)
    ).rows;
    const wordFrequencies = new Map<string, number>();
    for (const r of rows) {
      for (const word of r.words) wordFrequencies.set(word, Math.min(r.df, wordFrequencies.get(word) ?? Infinity));
    }
    const plan = lexicalPlan(rows.filter((r) => r.inQuery), n);
    const hits = await this.lexicalRounds(plan, avgdl, namespaces, limit, candidateBudget, [], new Set());
    return { hits, wordFrequencies };
  }

  /**
   * The MaxScore rounds of {@link lexical}, from the hits of the candidate terms `done` so far:
   * each round scores the chunks of the next rarest terms (while their chunk frequencies fit the
   * budget) that hold none of the terms scored before.
   */
  private async lexicalRounds(
    plan: LexicalPlan,
    /** The mean chunk length the plan's first rounds were scored with. */
    avgdl: number,
    namespaces: readonly string[] | null,
    limit: number,
    candidateBudget: number,
    hits: ScoredHit[],
    done: Set<string>,
    /**
     * The most chunks the rounds, those already scored included, may read: a round that would go
     * past it is not scored, and the ranking is that of the terms scored (see {@link hybridCandidates}).
     */
    candidateLimit = Number.POSITIVE_INFINITY,
  ): Promise<ScoredHit[]> {
    const remaining = plan.candidates.filter((t) => !done.has(t.term));
    let read = plan.candidates.reduce((sum, t) => (done.has(t.term) ? sum + t.df : sum), 0);
    const settled = () => {
      if (hits.length < limit) return false;
      // A chunk holding none of the terms scored so far can score at most the bounds of the others.
      const others = plan.terms.reduce((sum, t) => (done.has(t.term) ? sum : sum + t.idf * (BM25_K1 + 1)), 0);
      return others <= hits[limit - 1]!.raw;
    };
    if (done.size > 0 && settled()) return hits;
    const filter = namespaces ? sql`and c.namespace = any(${[...namespaces]}::text[])` : sql``;
    const tsquery = (terms: Iterable<string>) => [...terms].map(tsqueryOperand).join(' | ');
    const weights = sql`(
      select ${lexemeQuery(sql`term`)} as q, idf
      from unnest(${plan.terms.map((t) => t.term)}::text[], ${plan.terms.map((t) => t.idf)}::float8[]) as w(term, idf)
    )`;
    for (let next = 0; next < remaining.length; ) {
      if (read + remaining[next]!.df > candidateLimit) break;
      // This round: the next candidate term, and more while their chunk frequencies fit the budget.
      let end = next + 1;
      let chunks = remaining[next]!.df;
      while (end < remaining.length && chunks + remaining[end]!.df <= candidateBudget && read + chunks + remaining[end]!.df <= candidateLimit) {
        chunks += remaining[end++]!.df;
      }
      read += chunks;
      const round = remaining.slice(next, end).map((t) => t.term);
      const excluded = done.size > 0 ? sql`and not t.tsv @@ ${tsquery(done)}::tsquery` : sql``;
      const rows = await sql<ScoredHit>`
        with scored as (
          select c.id, ${SearchRepository.bm25(weights, avgdl)} as score
          from chunks c ${SearchRepository.detoasted}
          where c.search_tsv @@ ${tsquery(round)}::tsquery ${excluded} ${filter}
          order by score desc, c.id
          limit ${limit}
        )
        select ${SearchRepository.hitColumns}, s.score as raw
        from scored s
        join chunks c on c.id = s.id
        join documents d on d.id = c.document_id`.execute(this.db);
      hits = bestHits(hits, rows.rows.map((r) => withoutNulls({ ...r, raw: Number(r.raw) })), limit);
      for (const term of round) done.add(term);
      next = end;
      if (settled()) break;
    }
    return hits;
  }

  /**
   * hybridRank (hybrid.ts) in SQL, over the candidates of relation `hits` (id, score, distance:
   * the lexical and the vector ranking's) and the word frequencies of `word_frequencies`, from the
   * terms each chunk has stored (`lexical_terms`, written by ingestion with the same analysis): the
   * CTE `ranked` (id, score), best first, ties by id, at most `limit`; `pool_terms` has a null
   * `length` for a candidate without stored terms (its ranking is then not this one). The
   * arithmetic is hybridRank's, operation for operation, sums taken in its order of query terms.
   */
  private static rescoringCtes(rescore: HybridRescoring, stats: CorpusStats): RawBuilder<unknown> {
    const { k1, b, weights } = rescore;
    const n = Math.max(1, stats.n);
    const pairs = rescore.terms.flatMap(({ term, tokens }, ord) => tokens.map((token) => ({ term, token, ord })));
    const float = (x: number) => sql`${x}::float8`;
    const bm25 = (f: RawBuilder<unknown>, length: RawBuilder<unknown>, avg: RawBuilder<unknown>) =>
      sql`t.idf * ${f} * ${float(k1 + 1)} / (${f} + ${float(k1)} * (1 - ${float(b)} + ${float(b)} * ${length} / ${avg}))`;
    return sql`
      query_terms_idf as materialized (
        select term, ord, ln(1 + (${float(n)} - d + 0.5) / (d + 0.5)) as idf
        from (
          -- A term whose tokens the index all ignores has no frequency: it is left out.
          select x.term, min(x.ord) as ord, least(greatest(max(wf.df), 0), ${float(n)})::float8 as d
          from unnest(${pairs.map((p) => p.term)}::text[], ${pairs.map((p) => p.token)}::text[], ${pairs.map((p) => p.ord)}::int[]) as x(term, token, ord)
          join word_frequencies wf on wf.word = x.token
          group by x.term
        ) x
      ),
      pool_terms as materialized (
        select p.id, c.document_id, greatest(c.token_count, 0) as units, 1 - p.distance as similarity,
               (c.lexical_terms ->> 'length')::int as length, c.lexical_terms -> 'counts' as counts
        from (select id, min(distance) as distance from hits group by id) p
        join chunks c on c.id = p.id
      ),
      term_counts as materialized (
        select p.id, p.document_id, p.length, q.term, q.ord, q.idf, (p.counts ->> q.term)::int as f
        from pool_terms p cross join query_terms_idf q
        where p.counts ? q.term
      ),
      averages as materialized (
        select a.chunk, a.chunk * ${float(n / Math.max(1, stats.documents))} as document
        from (
          select greatest(1e-9, ${float(stats.avgdl)} * case when sum(units) > 0 and sum(length) > 0 then sum(length)::float8 / sum(units)::float8 else 1 end) as chunk
          from pool_terms
        ) a
      ),
      chunk_scores as materialized (
        select p.id, p.document_id, p.similarity, coalesce(s.score, 0) as score, s.id is not null as has_term
        from pool_terms p
        left join (
          select t.id, sum(${bm25(sql`t.f`, sql`t.length`, sql`a.chunk`)} order by t.ord) as score
          from term_counts t cross join averages a
          group by t.id
        ) s on s.id = p.id
      ),
      document_lengths as materialized (
        select document_id, sum(length) as length from pool_terms group by document_id
      ),
      document_scores as materialized (
        select d.document_id, coalesce(s.score, 0) as score
        from document_lengths d
        left join (
          select t.document_id, sum(${bm25(sql`t.f`, sql`l.length`, sql`a.document`)} order by t.ord) as score
          from (select document_id, term, min(ord) as ord, min(idf) as idf, sum(f) as f from term_counts group by document_id, term) t
          join document_lengths l on l.document_id = t.document_id
          cross join averages a
          group by t.document_id
        ) s on s.document_id = d.document_id
      ),
      normalised as materialized (
        select c.id, c.has_term, c.score as chunk, d.score as document, c.similarity,
               max(c.score) over () as max_chunk, max(d.score) over () as max_document,
               min(c.similarity) over () as v_min, max(c.similarity) over () as v_max
        from chunk_scores c join document_scores d on d.document_id = c.document_id
      ),
      ranked as (
        select id, least(1, greatest(0, (
                 ${float(weights.chunk)} * case when max_chunk > 0 then chunk / max_chunk else 0 end
                 + ${float(weights.document)} * case when max_document > 0 then document / max_document else 0 end
                 + ${float(weights.vector)} * case when similarity is null then 0 when v_max > v_min then (similarity - v_min) / (v_max - v_min) else 1 end
               ) / ${float(weights.chunk + weights.document + weights.vector)})) as score
        from normalised
        ${rescore.requireTerm ? sql`where has_term` : sql``}
        order by score desc, id
        limit ${rescore.limit}
      )`;
  }

  /**
   * The candidates of a hybrid search, in one statement where it can: the query's term
   * frequencies, the first round of {@link lexical} (which settles the ranking unless the query's
   * selective terms are frequent together), the Rocchio feedback vector
   * l2_normalize(q + beta * mean(top `feedbackDocs` lexical hits' vectors)) (see prf.ts) and the
   * `depth` chunks nearest to it. When the first round does not settle the lexical ranking, the
   * remaining rounds, the feedback and the vector ranking follow as statements of their own.
   *
   * The lexical ranking reads at most `lexicalCandidates` chunks, so that its cost does not grow
   * with the store. While the rounds it needs read fewer chunks in all, it is exact as above; a
   * later round that would read past the limit is not read, and the ranking is that of the terms
   * scored. When even the query's rarest selective word is in more chunks (a word in 1% of a
   * million chunks), the candidates are the chunks holding the rarest words together: as few of
   * them, rarest first, as are expected, were the words independent, in at most the limit's
   * number of chunks (all of them if none are); the first of those in storage order, at most the
   * limit's number, are scored, and no later round is read. Chunk frequencies are the store's,
   * whatever the namespace filter: they are also what the full-text index reads. The ranking is
   * then BM25 over the chunks that hold those words together, not over all: a chunk that holds
   * one of them often but not the others is missed (and none when no chunk holds them together),
   * which fusion with the vector ranking covers.
   *
   * With `rescore`, the statement also ranks the candidates as hybridRank would (see
   * {@link rescoringCtes}) and returns the results only, texts included, as `ranked`: when the
   * first round settles the lexical ranking and every candidate has its terms stored. Otherwise
   * it returns the candidates with their texts, as without it, for the caller to rank.
   */
  async hybridCandidates(input: {
    query: string;
    /** Words whose chunk frequencies to return (see {@link lexical}). */
    words: readonly string[];
    vector: readonly number[];
    namespaces: readonly string[] | null;
    depth: number;
    feedbackDocs: number;
    feedbackBeta: number;
    candidateBudget?: number;
    /** Rescore the candidates in the statement (see {@link HybridRescoring}). */
    rescore?: HybridRescoring;
  }): Promise<HybridCandidates> {
    const { query, words, vector, namespaces, depth, feedbackBeta, rescore } = input;
    const limit = this.lexicalCandidates;
    // A round within the budget never reaches the limit: the limit only binds past the budget.
    const candidateBudget = Math.min(input.candidateBudget ?? CANDIDATE_BUDGET, limit);
    const limitParameter = Number.isFinite(limit) ? limit : 'Infinity';
    const stats = await this.corpusStats();
    const { n, avgdl } = stats;
    const feedbackDocs = feedbackBeta === 0 ? 0 : input.feedbackDocs;
    const selective = n * SELECTIVE_FRACTION;
    const filter = namespaces ? sql`and c.namespace = any(${[...namespaces]}::text[])` : sql``;
    const allHits = sql`
      select coalesce(json_agg(h), '[]')
      from (select ${SearchRepository.hitColumns}, h.score, h.distance
            from hits h join chunks c on c.id = h.id join documents d on d.id = c.document_id) h`;
    const statement = (executor: Kysely<DB>) => sql<HybridStatementRow>`${prepared}
      with ${this.frequencyCtes(query, words)},
      terms as materialized (
        select term, df, ln(1 + (greatest(${n}::float8, df) - df + 0.5) / (df + 0.5)) as idf, ${lexemeQuery(sql`term`)} as q
        from frequencies
        where in_query and df > 0
      ),
      candidates as (
        select term, df from terms
        where df <= ${selective}::float8 or not exists (select from terms where df <= ${selective}::float8)
      ),
      round as materialized (
        select term, capped
        from (
          select term, position, chunks, capped,
                 coalesce(min(position) filter (where together <= ${limitParameter}::float8) over (), count(*) over ()) as together_within
          from (
            select term, sum(df) over w as chunks, row_number() over w as position,
                   -- Chunks expected to hold this term and every rarer one, were they independent.
                   ${n}::float8 * exp(sum(ln(least(df::float8 / ${Math.max(n, 1)}::float8, 1))) over w) as together,
                   min(df) over () > ${limitParameter}::float8 as capped
            from candidates
            window w as (order by df, term collate "C" rows unbounded preceding)
          ) ordered
        ) planned
        where case when capped then position <= together_within else position = 1 or chunks <= ${candidateBudget}::float8 end
      ),
      lexical as materialized (
        select c.id, ${SearchRepository.bm25(sql`terms`, avgdl)} as score
        from (
          select c.id, c.token_count, c.search_tsv
          from chunks c
          where c.search_tsv @@ (
            select string_agg(${quotedLexeme(sql`term`)}, case when capped then ' & ' else ' | ' end)::tsquery from round
          ) ${filter}
          limit ${limit === Number.POSITIVE_INFINITY ? null : limit}
        ) c ${SearchRepository.detoasted}
        order by score desc, c.id
        limit ${depth}
      ),
      feedback as (
        select l2_normalize(coalesce(q.v + (
          select avg(c.embedding) * array_fill(${feedbackBeta}::real, array[${vector.length}::int])::vector
          from (select id from lexical order by score desc, id limit ${feedbackDocs}) f
          join chunks c on c.id = f.id
          where c.embedding is not null
        ), q.v)) as v
        from (select ${this.database.vectorParameter(vector)}::vector as v) q
      ),
      nearest as materialized (
        ${this.nearestIds(sql`(select v from feedback)`, vector.length, namespaces, depth)}
      ),
      hits as (
        select id, score, null::float8 as distance from lexical
        union all
        select id, null, distance from nearest
      ),
      word_frequencies as (
        select w.word, min(f.df) as df from words w join frequencies f on f.term = any(w.lexemes) group by w.word
      )${rescore ? sql`, ${SearchRepository.rescoringCtes(rescore, stats)},
      -- Rescored here when the first round settled the lexical ranking and every candidate has its terms stored.
      rescored as (
        select (coalesce((select bool_or(capped) from round), false)
                or not exists (select from candidates where term not in (select term from round)))
               and not exists (select from pool_terms where length is null) as v
      )` : sql``}
      select
        coalesce((select bool_or(capped) from round), false) as capped,
        (select coalesce(json_agg(json_build_object('term', term, 'df', df, 'inQuery', in_query,
                 'inRound', term in (select term from round))), '[]') from frequencies) as terms,
        (select coalesce(json_object_agg(word, df), '{}') from word_frequencies) as words,
        ${rescore
          ? sql`case when (select v from rescored) then (
                  select coalesce(json_agg(h order by h.score desc, h."chunkId"), '[]')
                  from (select ${SearchRepository.hitColumns}, r.score
                        from ranked r join chunks c on c.id = r.id join documents d on d.id = c.document_id) h)
                end as ranked,
                case when (select v from rescored) then (select max(similarity) from pool_terms) end as "bestSimilarity",
                case when not (select v from rescored) then (${allHits}) end as hits`
          : sql`(${allHits}) as hits`}`.execute(executor);
    const row = (await this.database.withVectorSearch(statement)).rows[0]!;
    const wordFrequencies = new Map(Object.entries(row.words));
    if (row.ranked) {
      const hits = row.ranked.map(({ tokenCount: _tokenCount, ...h }) => withoutNulls(h));
      return { ranked: { hits, bestSimilarity: row.bestSimilarity ?? null }, lexical: [], nearest: [], wordFrequencies };
    }
    const hit = ({ score: _score, distance: _distance, ...h }: NonNullable<HybridStatementRow['hits']>[number], raw: number) => withoutNulls({ ...h, raw });
    const lexical: ScoredHit[] = [];
    let nearest: ScoredHit[] = [];
    for (const h of row.hits ?? []) {
      if (h.score !== null) lexical.push(hit(h, h.score));
      else if (h.distance !== null) nearest.push(hit(h, h.distance));
    }
    lexical.sort((a, b) => b.raw - a.raw || (a.chunkId < b.chunkId ? -1 : 1));
    nearest.sort((a, b) => a.raw - b.raw);
    const plan = lexicalPlan(row.terms.filter((t) => t.inQuery), n);
    const done = new Set(row.terms.filter((t) => t.inRound).map((t) => t.term));
    if (row.capped || plan.candidates.every((t) => done.has(t.term))) return { lexical, nearest, wordFrequencies };
    const hits = await this.lexicalRounds(plan, avgdl, namespaces, depth, candidateBudget, lexical, done, limit);

    const top = (list: readonly ScoredHit[]) => list.slice(0, feedbackDocs).map((h) => h.chunkId).join();
    if (top(hits) === top(lexical)) return { lexical: hits, nearest, wordFrequencies };
    // Later rounds changed the lexical ranking's best hits, the feedback.
    const feedback = await this.vectors(hits.slice(0, feedbackDocs).map((h) => h.chunkId));
    nearest = await this.nearest(rocchio(vector, feedback, feedbackBeta), namespaces, depth);
    return { lexical: hits, nearest, wordFrequencies };
  }

  /** Stored vectors of some chunks (pseudo-relevance feedback). */
  async vectors(chunkIds: readonly string[]): Promise<number[][]> {
    if (chunkIds.length === 0) return [];
    const rows = await sql<{ embedding: string }>`
      select embedding::text as embedding from chunks where id = any(${[...chunkIds]}::uuid[]) and embedding is not null`.execute(this.db);
    return rows.rows.map((r) => JSON.parse(r.embedding) as number[]);
  }
}
