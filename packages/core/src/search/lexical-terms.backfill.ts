import type { Database, DB } from '@kb/db';
import { sql, type Kysely } from 'kysely';
import type { Logger } from '../logger.ts';
import { chunkSearchText, storedLexicalTerms } from './hybrid.ts';

/** Chunks analysed and written a statement. */
export const LEXICAL_TERMS_BATCH = 500;

/**
 * Fills `chunks.lexical_terms` (see storedLexicalTerms) for chunks written before ingestion stored
 * it, so that hybrid searches rescore them in the statement; until then they are ranked from
 * their texts, with the same result. Resumable: each batch is its own statement, and a run
 * (after a restart, or by another server at once) takes up the chunks still without terms, found
 * through a partial index that holds only those. Chunks are replaced, never updated, so a chunk's
 * terms never go stale.
 */
export class LexicalTermsBackfill {
  private readonly db: Kysely<DB>;

  constructor(database: Pick<Database, 'db'>) {
    this.db = database.db;
  }

  /** Fills every chunk without terms, `batch` at a time; returns how many it filled. */
  async run(options: { batch?: number; signal?: AbortSignal } = {}): Promise<number> {
    let filled = 0;
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      if (options.signal?.aborted) break;
      const rows = (
        await sql<{ id: string; headingPath: string; content: string }>`
          select id, heading_path as "headingPath", content from chunks
          where lexical_terms is null and id > ${after}::uuid
          order by id
          limit ${options.batch ?? LEXICAL_TERMS_BATCH}`.execute(this.db)
      ).rows;
      if (rows.length === 0) break;
      const updated = await sql`
        update chunks c set lexical_terms = t.terms::jsonb
        from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => storedLexicalTerms(chunkSearchText(r.headingPath, r.content)))}::text[]) as t(id, terms)
        where c.id = t.id and c.lexical_terms is null`.execute(this.db);
      filled += Number(updated.numAffectedRows ?? 0);
      after = rows[rows.length - 1]!.id;
    }
    return filled;
  }

  /** {@link run} in the background, logging what it did or why it stopped. */
  start(logger: Logger, signal?: AbortSignal): Promise<void> {
    return this.run({ ...(signal ? { signal } : {}) }).then(
      (filled) => {
        if (filled > 0) logger.info({ chunks: filled }, 'stored the hybrid ranking terms of chunks written before them');
      },
      (error: unknown) => {
        if (!signal?.aborted) logger.warn({ err: error }, 'filling the hybrid ranking terms of older chunks stopped; the next start resumes it');
      },
    );
  }
}
