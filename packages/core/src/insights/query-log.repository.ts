import type { DB } from '@kb/db';
import { sql, type Kysely } from 'kysely';

export interface QueryLogEntry {
  kind: 'search' | 'chat';
  query: string;
  normalized: string;
  namespaces: readonly string[];
  bestScore: number | null;
  apiKeyId: string | null;
  at: Date;
}

export interface GapRecord {
  query: string;
  count: number;
  bestScore: number | null;
  meanScore: number | null;
  namespaces: string[];
  kinds: Array<'search' | 'chat'>;
  firstAskedAt: Date;
  lastAskedAt: Date;
  /** Thumbs-down votes on answers to it in the window. */
  thumbsDown: number;
}

export class QueryLogRepository {
  /** `reads`: where the gaps list reads (a replica's lag is tolerated there; default `db`). */
  constructor(
    private readonly db: Kysely<DB>,
    private readonly reads: Kysely<DB> = db,
  ) {}

  /** Many entries in one statement. */
  async insert(entries: readonly QueryLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await sql`
      insert into query_log (kind, query, normalized, namespaces, best_score, api_key_id, created_at)
      select kind, query, normalized, namespaces::jsonb, best_score, api_key_id, created_at
      from unnest(${entries.map((e) => e.kind)}::text[], ${entries.map((e) => e.query)}::text[],
                  ${entries.map((e) => e.normalized)}::text[], ${entries.map((e) => JSON.stringify(e.namespaces))}::text[],
                  ${entries.map((e) => e.bestScore)}::float8[], ${entries.map((e) => e.apiKeyId)}::uuid[],
                  ${entries.map((e) => e.at.toISOString())}::timestamptz[])
        as t(kind, query, normalized, namespaces, best_score, api_key_id, created_at)`.execute(this.db);
  }

  /** Removes entries older than `before`; returns how many. */
  async deleteBefore(before: Date): Promise<number> {
    const result = await this.db.deleteFrom('query_log').where('created_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Queries asked since `since`, grouped by their normalised text, weakest first: by their mean
   * best score (nothing found counts as weakest), then the most asked. `maxScore` keeps the groups
   * whose mean best score is at most that.
   */
  async gaps(filter: { since: Date; kind?: 'search' | 'chat'; maxScore?: number }, page: { limit: number; offset: number }): Promise<{ total: number; gaps: GapRecord[] }> {
    const kind = filter.kind === undefined ? sql`` : sql`and kind = ${filter.kind}`;
    const since = filter.since.toISOString();
    // A question readers voted down is a gap whatever its scores said.
    const having =
      filter.maxScore === undefined ? sql`` : sql`having coalesce(avg(best_score), 0) <= ${filter.maxScore} or coalesce(max(d.n), 0) > 0`;
    const grouped = sql`
      select normalized,
             coalesce(max(d.n), 0)::int as "thumbsDown",
             (array_agg(query order by created_at desc))[1] as query,
             count(*)::int as count,
             max(best_score) as "bestScore",
             avg(best_score) as "meanScore",
             jsonb_agg(distinct namespaces) as namespaces,
             jsonb_agg(distinct kind) as kinds,
             min(created_at) as "firstAskedAt",
             max(created_at) as "lastAskedAt"
      from query_log l
      left join (
        select question_normalized, count(*)::int as n from message_feedback
        where rating = 'down' and updated_at >= ${since}::timestamptz
        group by question_normalized
      ) d on d.question_normalized = l.normalized
      where created_at >= ${since}::timestamptz ${kind}
      group by normalized
      ${having}`;
    const [rows, total] = await Promise.all([
      sql<{
        query: string;
        count: number;
        bestScore: number | null;
        meanScore: number | null;
        namespaces: string[][] | string;
        kinds: Array<'search' | 'chat'> | string;
        firstAskedAt: Date;
        lastAskedAt: Date;
        thumbsDown: number;
      }>`
        select * from (${grouped}) g
        order by "thumbsDown" desc, "meanScore" asc nulls first, count desc, "lastAskedAt" desc, normalized
        limit ${page.limit} offset ${page.offset}`.execute(this.reads),
      sql<{ n: string }>`select count(*) as n from (${grouped}) g`.execute(this.reads),
    ]);
    const parse = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);
    return {
      total: Number(total.rows[0]?.n ?? 0),
      gaps: rows.rows.map((r) => ({
        query: r.query,
        count: Number(r.count),
        bestScore: r.bestScore === null ? null : Number(r.bestScore),
        meanScore: r.meanScore === null ? null : Number(r.meanScore),
        namespaces: [...new Set(parse(r.namespaces).flat())].sort(),
        kinds: parse(r.kinds).slice().sort(),
        firstAskedAt: new Date(r.firstAskedAt),
        lastAskedAt: new Date(r.lastAskedAt),
        thumbsDown: Number(r.thumbsDown),
      })),
    };
  }
}
