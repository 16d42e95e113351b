import { exactVectorDistance, shortlistSize, type Database, type DB } from '@kb/db';
import { sql, type Kysely, type RawBuilder } from 'kysely';

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
}

export interface ScoredHit extends ChunkHit {
  /** Cosine distance (vector ranking) or the lexical rank score. */
  raw: number;
  /** The chunker's token count of the chunk. */
  tokenCount: number;
}

/** Collection statistics of the lexical ranking, refreshed every few seconds. */
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

/**
 * A lexeme as a tsquery operand. tsquery input takes a quoted operand verbatim, so a lexeme such
 * as "day-old" stays one lexeme (to_tsquery would parse it again into a phrase of its parts and
 * match something else).
 */
function tsqueryOperand(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** {@link tsqueryOperand} in SQL, as a one-lexeme tsquery. */
function lexemeQuery(lexeme: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`('''' || replace(replace(${lexeme}, '\\', '\\\\'), '''', '''''') || '''')::tsquery`;
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

/** A hit as read, its `url` left out when the document has none. */
function withoutNullUrl<T extends { url?: string | null }>(row: T): T & { url?: string } {
  const { url, ...rest } = row;
  return (url === null || url === undefined ? rest : { ...rest, url }) as T & { url?: string };
}

export class SearchRepository {
  private readonly db: Kysely<DB>;
  private readonly exact: boolean;

  /** `options.exact`: rank by the whole vectors of every chunk, without the index (evaluation). */
  constructor(
    private readonly database: Pick<Database, 'db' | 'vectorParameter' | 'vectorDistance' | 'withVectorSearch'>,
    options: { exact?: boolean } = {},
  ) {
    this.db = database.db;
    this.exact = options.exact ?? false;
  }

  /**
   * Nearest child chunks by cosine distance. The HNSW index serves the ORDER BY ... LIMIT (of a
   * shortlist reranked by the whole vectors when it holds their prefixes, see @kb/db's
   * vector-index.ts); with a namespace filter, iterative index scans keep scanning until the
   * limit's rows match (a plain HNSW scan would filter its first ef_search candidates and
   * return fewer).
   */
  async nearest(vector: readonly number[], namespaces: readonly string[] | null, limit: number): Promise<ScoredHit[]> {
    // The query vector's length is the store's dimension (the embedder was checked against it).
    const queryVector = this.database.vectorParameter(vector);
    const indexed = this.database.vectorDistance(vector.length, sql.ref('c.embedding'), queryVector);
    const filter = namespaces ? sql`where c.namespace = any(${[...namespaces]}::text[])` : sql``;
    const shortlist = shortlistSize(vector.length, limit);
    // The index holds whole vectors: its order is the answer. It holds their prefixes: its best
    // `shortlist` are reranked by the whole vectors.
    const exact = exactVectorDistance(sql.ref('c.embedding'), queryVector);
    const nearest = this.exact
      ? sql`select c.id, ${exact} as distance from chunks c ${filter} order by ${exact} limit ${limit}`
      : shortlist === null
      ? sql`
          select c.id, ${indexed} as distance
          from chunks c
          ${filter}
          order by ${indexed}
          limit ${limit}`
      : sql`
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
    const query = (executor: Kysely<DB>) => sql<ScoredHit>`
      select c.id as "chunkId", c.document_id as "documentId", d.title as "documentTitle", d.slug, d.url,
             c.heading_path as "headingPath", c.content, c.namespace, c.token_count as "tokenCount",
             n.distance as raw
      from (${nearest}) n
      join chunks c on c.id = n.id
      join documents d on d.id = c.document_id`.execute(executor);
    // With sequential scans off, or the planner reads and sorts whole small tables (see Database).
    const rows = await this.database.withVectorSearch(query);
    // Iterative scans in relaxed order may return neighbours slightly out of order.
    return rows.rows.map((r) => withoutNullUrl({ ...r, raw: Number(r.raw) })).sort((a, b) => a.raw - b.raw);
  }

  private stats: (CorpusStats & { at: number }) | undefined;

  /** Chunk and document counts and the mean chunk length for BM25, refreshed every few seconds. */
  async corpusStats(): Promise<CorpusStats> {
    if (!this.stats || Date.now() - this.stats.at > STATS_TTL_MS) {
      const row = (
        await sql<{ n: string; documents: string; avgdl: number | null }>`
          select count(*) as n, count(distinct document_id) as documents, avg(token_count)::float8 as avgdl
          from chunks`.execute(this.db)
      ).rows[0]!;
      this.stats = { n: Number(row.n), documents: Number(row.documents), avgdl: Number(row.avgdl ?? 1) || 1, at: Date.now() };
    }
    return this.stats;
  }

  /**
   * The chunk frequencies of the query's terms as the full-text index analyses the query, and of
   * each of `words` analysed on its own (a word the index ignores, one of its stop words, is left
   * out; a word it splits counts as its least frequent part), in one statement.
   */
  private async termFrequencies(
    query: string,
    words: readonly string[],
  ): Promise<{ terms: Array<{ term: string; df: number }>; words: Map<string, number> }> {
    const rows = (
      await sql<{ term: string; df: string; inQuery: boolean; words: string[] }>`
        with words as (
          select word, tsvector_to_array(to_tsvector('english', word)) as lexemes
          from unnest(${[...words]}::text[]) as word
        ),
        query_terms as (
          select lexeme as term from unnest(to_tsvector('english', ${query}))
        ),
        terms as (
          select term from query_terms
          union
          select unnest(lexemes) from words
        )
        select t.term,
               (select count(*) from chunks where search_tsv @@ ${lexemeQuery(sql`t.term`)}) as df,
               t.term in (select term from query_terms) as "inQuery",
               array(select w.word from words w where t.term = any(w.lexemes)) as words
        from terms t`.execute(this.db)
    ).rows;
    const wordFrequencies = new Map<string, number>();
    for (const r of rows) {
      const df = Number(r.df);
      for (const word of r.words) wordFrequencies.set(word, Math.min(df, wordFrequencies.get(word) ?? Infinity));
    }
    return { terms: rows.filter((r) => r.inQuery).map((r) => ({ term: r.term, df: Number(r.df) })), words: wordFrequencies };
  }

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
   * (see {@link termFrequencies}), for rescoring the hits with another analysis.
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
    const frequencies = await this.termFrequencies(query, words);
    const wordFrequencies = frequencies.words;
    const terms = frequencies.terms.filter((t) => t.df > 0);
    if (terms.length === 0) return { hits: [], wordFrequencies };
    const idf = terms.map((t) => Math.log(1 + (Math.max(n, t.df) - t.df + 0.5) / (t.df + 0.5)));
    const bound = new Map(terms.map((t, i) => [t.term, idf[i]! * (BM25_K1 + 1)]));
    const selective = terms.filter((t) => t.df <= n * SELECTIVE_FRACTION);
    const candidates = (selective.length > 0 ? selective : terms).slice().sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1));
    const filter = namespaces ? sql`and c.namespace = any(${[...namespaces]}::text[])` : sql``;
    const tsquery = (ts: readonly { term: string }[]) => ts.map((t) => tsqueryOperand(t.term)).join(' | ');
    const scoreRound = async (round: readonly { term: string }[], earlier: readonly { term: string }[]): Promise<ScoredHit[]> => {
      const excluded = earlier.length > 0 ? sql`and not c.search_tsv @@ ${tsquery(earlier)}::tsquery` : sql``;
      const rows = await sql<ScoredHit>`
        with w as (
          select ${lexemeQuery(sql`term`)} as q, idf
          from unnest(${terms.map((t) => t.term)}::text[], ${idf}::float8[]) as w(term, idf)
        ),
        scored as (
          select c.id, (
            select sum(w.idf * (${BM25_K1 + 1}::float8 - ${BM25_K1 + 1}::float8 * k.k / (${termFrequency(sql`c.search_tsv`, sql`w.q`)} + k.k)))
            from w
            where c.search_tsv @@ w.q
          ) as score
          from chunks c
          cross join lateral (
            select ${BM25_K1}::float8 * (${1 - BM25_B}::float8 + ${BM25_B}::float8 * c.token_count / ${avgdl}::float8) as k
          ) k
          where c.search_tsv @@ ${tsquery(round)}::tsquery ${excluded} ${filter}
          order by score desc, c.id
          limit ${limit}
        )
        select c.id as "chunkId", c.document_id as "documentId", d.title as "documentTitle", d.slug, d.url,
               c.heading_path as "headingPath", c.content, c.namespace, c.token_count as "tokenCount",
               s.score as raw
        from scored s
        join chunks c on c.id = s.id
        join documents d on d.id = c.document_id`.execute(this.db);
      return rows.rows.map((r) => withoutNullUrl({ ...r, raw: Number(r.raw) }));
    };

    let hits: ScoredHit[] = [];
    let scored = 0;
    while (scored < candidates.length) {
      // This round: the next candidate term, and more while their chunk frequencies fit the budget.
      let end = scored + 1;
      let chunks = candidates[scored]!.df;
      while (end < candidates.length && chunks + candidates[end]!.df <= candidateBudget) chunks += candidates[end++]!.df;
      const round = candidates.slice(scored, end);
      hits = [...hits, ...(await scoreRound(round, candidates.slice(0, scored)))]
        .sort((a, b) => b.raw - a.raw || (a.chunkId < b.chunkId ? -1 : 1))
        .slice(0, limit);
      scored = end;
      if (hits.length < limit || scored === candidates.length) continue;
      // A chunk holding none of the terms scored so far can score at most the bounds of the others.
      const done = new Set(candidates.slice(0, scored));
      const others = terms.reduce((sum, t) => (done.has(t) ? sum : sum + bound.get(t.term)!), 0);
      if (others <= hits[limit - 1]!.raw) break;
    }
    return { hits, wordFrequencies };
  }

  /** Stored vectors of some chunks (pseudo-relevance feedback). */
  async vectors(chunkIds: readonly string[]): Promise<number[][]> {
    if (chunkIds.length === 0) return [];
    const rows = await sql<{ embedding: string }>`
      select embedding::text as embedding from chunks where id = any(${[...chunkIds]}::uuid[]) and embedding is not null`.execute(this.db);
    return rows.rows.map((r) => JSON.parse(r.embedding) as number[]);
  }
}
