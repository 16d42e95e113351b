import type { DB, FaqCacheSource } from '@kb/db';
import { sql, type Kysely } from 'kysely';

/** A stored FAQ that may be served. */
export interface CachedFaq {
  content: string;
  sources: FaqCacheSource[];
  generatedAt: Date;
}

export interface FaqEntry {
  cacheKey: string;
  query: string;
  scope: string;
  language: string;
  content: string;
  sources: FaqCacheSource[];
  generator: string;
  createdAt: Date;
  expiresAt: Date;
}

/** A document as an FAQ names it, with its current content hash. */
export type DocumentState = Omit<FaqCacheSource, 'documentId'>;

/** FAQ entries, the documents they name, and the leases that keep one entry from being made twice at once. */
export class FaqRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * The entry for a key when it may be served: not expired at `now`, made by `generator`, and
   * every document it names still there with the content hash it was made from. One query.
   */
  async find(cacheKey: string, generator: string, now: Date): Promise<CachedFaq | undefined> {
    const { rows } = await sql<{ content: string; sources: FaqCacheSource[] | string; created_at: Date; fresh: boolean }>`
      select c.content, c.sources, c.created_at,
             not exists (
               select 1 from jsonb_to_recordset(c.sources) as s("documentId" uuid, "contentHash" text)
               left join documents d on d.id = s."documentId"
               where d.content_hash is distinct from s."contentHash"
             ) as fresh
      from faq_cache c
      where c.cache_key = ${cacheKey} and c.expires_at > ${now} and c.generator = ${generator}`.execute(this.db);
    const row = rows[0];
    if (!row || !row.fresh) return undefined;
    return {
      content: row.content,
      sources: typeof row.sources === 'string' ? (JSON.parse(row.sources) as FaqCacheSource[]) : row.sources,
      generatedAt: new Date(row.created_at),
    };
  }

  async store(entry: FaqEntry): Promise<void> {
    const update = {
      query: entry.query,
      scope: entry.scope,
      language: entry.language,
      content: entry.content,
      sources: JSON.stringify(entry.sources),
      generator: entry.generator,
      created_at: entry.createdAt,
      expires_at: entry.expiresAt,
    };
    await this.db
      .insertInto('faq_cache')
      .values({ cache_key: entry.cacheKey, ...update })
      .onConflict((oc) => oc.column('cache_key').doUpdateSet(update))
      .execute();
  }

  /** Deletes entries expired at `now`; returns how many. */
  async removeExpired(now: Date): Promise<number> {
    const result = await this.db.deleteFrom('faq_cache').where('expires_at', '<=', now).executeTakeFirst();
    await this.db.deleteFrom('faq_generations').where('expires_at', '<=', sql<Date>`now()`).execute();
    return Number(result.numDeletedRows);
  }

  /** Title, slug, namespace, link (see documentUrl) and content hash of documents, by id. */
  async documents(ids: readonly string[]): Promise<Map<string, DocumentState>> {
    const states = new Map<string, DocumentState>();
    if (ids.length === 0) return states;
    const rows = await this.db
      .selectFrom('documents')
      .select(['id', 'title', 'slug', 'namespace', 'content_hash', 'url'])
      .where('id', '=', (eb) => eb.fn.any(sql<string[]>`${[...ids]}::uuid[]`))
      .execute();
    for (const row of rows) {
      const url = row.url !== null && /^https?:\/\/\S+$/i.test(row.url) ? row.url : undefined;
      states.set(row.id, { title: row.title, slug: row.slug, namespace: row.namespace, contentHash: row.content_hash, ...(url ? { url } : {}) });
    }
    return states;
  }

  /**
   * Takes the lease on making an entry for `ttlMs` (database time), if nobody holds it or its
   * holder let it lapse. Returns whether `owner` holds it now.
   */
  async acquireLease(cacheKey: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rows } = await sql<{ owner: string }>`
      insert into faq_generations (cache_key, owner, expires_at)
      values (${cacheKey}, ${owner}, now() + ${`${ttlMs} milliseconds`}::interval)
      on conflict (cache_key) do update set owner = excluded.owner, expires_at = excluded.expires_at
      where faq_generations.expires_at <= now()
      returning owner`.execute(this.db);
    return rows[0]?.owner === owner;
  }

  /** Extends a held lease; false when it was lost (it lapsed and another process took it). */
  async renewLease(cacheKey: string, owner: string, ttlMs: number): Promise<boolean> {
    const result = await sql`
      update faq_generations set expires_at = now() + ${`${ttlMs} milliseconds`}::interval
      where cache_key = ${cacheKey} and owner = ${owner}`.execute(this.db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async releaseLease(cacheKey: string, owner: string): Promise<void> {
    await this.db.deleteFrom('faq_generations').where('cache_key', '=', cacheKey).where('owner', '=', owner).execute();
  }
}
