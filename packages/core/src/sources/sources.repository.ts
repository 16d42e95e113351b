import type { DB, SourcePageStatus, SourceSyncStats, SourceSyncStatus } from '@kb/db';
import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { afterPosition, cursorPage, cursorTime, type KeysetPosition } from '../lists/keyset.ts';

export type SourceRecord = Selectable<DB['sources']>;
export type SourcePageRecord = Omit<Selectable<DB['source_pages']>, 'links'>;

export const EMPTY_STATS: SourceSyncStats = Object.freeze({ discovered: 0, fetched: 0, unchanged: 0, updated: 0, removed: 0, failed: 0 });

/** What a sync writes of one page. */
export interface PageOutcome {
  url: string;
  status: SourcePageStatus;
  documentId?: string | null;
  finalUrl?: string | null;
  reason?: string | null;
  httpStatus?: number | null;
  etag?: string | null;
  lastModified?: string | null;
  bodyHash?: string | null;
  sitemapLastmod?: string | null;
  inSitemap?: boolean;
  /** Undefined keeps the stored links (a page answered 304 still has them). */
  links?: string[] | null;
}

/** The sources and source_pages tables. */
/** A page's record without its links (those are read when needed). */
const PAGE_RECORD_COLUMNS = [
  'source_id',
  'url',
  'document_id',
  'final_url',
  'status',
  'reason',
  'http_status',
  'etag',
  'last_modified',
  'body_hash',
  'sitemap_lastmod',
  'in_sitemap',
  'missing_syncs',
  'last_sync',
  'updated_at',
] as const;

export class SourcesRepository {
  constructor(private readonly db: Kysely<DB>) {}

  create(values: { kind: string; name: string; namespace: string; settings: Record<string, unknown>; scheduleMinutes: number | null; nextSyncAt: Date | null }): Promise<SourceRecord> {
    return this.db
      .insertInto('sources')
      .values({
        kind: values.kind,
        name: values.name,
        namespace: values.namespace,
        settings: JSON.stringify(values.settings),
        schedule_minutes: values.scheduleMinutes,
        next_sync_at: values.nextSyncAt,
        last_sync_job_id: null,
        last_sync_status: null,
        last_sync_error: null,
        last_sync_started_at: null,
        last_sync_finished_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  get(id: string): Promise<SourceRecord | undefined> {
    return this.db.selectFrom('sources').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Newest first, by keyset. */
  async list(page: { limit: number; after?: KeysetPosition }): Promise<{ sources: SourceRecord[]; nextCursor: string | null }> {
    let query = this.db.selectFrom('sources').selectAll().select(cursorTime('created_at').as('cursor_at'));
    if (page.after) query = query.where(afterPosition('created_at', 'id', page.after, 'desc'));
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit + 1).execute();
    const { rows: listed, nextCursor } = cursorPage(rows, page.limit, (row) => row.id);
    return { sources: listed.map(({ cursor_at: _, ...row }) => row as SourceRecord), nextCursor };
  }

  update(
    id: string,
    values: { name?: string; settings?: Record<string, unknown>; scheduleMinutes?: number | null; nextSyncAt?: Date | null },
  ): Promise<SourceRecord | undefined> {
    return this.db
      .updateTable('sources')
      .set({
        ...(values.name !== undefined ? { name: values.name } : {}),
        ...(values.settings !== undefined ? { settings: JSON.stringify(values.settings) } : {}),
        ...(values.scheduleMinutes !== undefined ? { schedule_minutes: values.scheduleMinutes } : {}),
        ...(values.nextSyncAt !== undefined ? { next_sync_at: values.nextSyncAt } : {}),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('sources').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Sources with a schedule whose next sync is due. */
  due(now: Date): Promise<Array<{ id: string }>> {
    return this.db
      .selectFrom('sources')
      .select('id')
      .where('schedule_minutes', 'is not', null)
      .where('next_sync_at', '<=', now)
      .orderBy('next_sync_at')
      .limit(100)
      .execute();
  }

  scheduled(): Promise<Array<{ id: string; schedule_minutes: number | null }>> {
    return this.db.selectFrom('sources').select(['id', 'schedule_minutes']).where('schedule_minutes', 'is not', null).execute();
  }

  /** A sync starts: its number, its job, the time; the next scheduled one is counted from now. */
  async beginSync(id: string, jobId: string): Promise<SourceRecord | undefined> {
    return this.db
      .updateTable('sources')
      .set((eb) => ({
        sync_count: eb('sync_count', '+', 1),
        last_sync_job_id: jobId,
        last_sync_started_at: new Date(),
        last_sync_finished_at: null,
        last_sync_status: null,
        last_sync_error: null,
        last_sync_stats: JSON.stringify(EMPTY_STATS),
        next_sync_at: sql<Date | null>`case when schedule_minutes is null then null else now() + make_interval(mins => schedule_minutes) end`,
      }))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async saveStats(id: string, stats: SourceSyncStats): Promise<void> {
    await this.db.updateTable('sources').set({ last_sync_stats: JSON.stringify(stats) }).where('id', '=', id).execute();
  }

  async finishSync(id: string, jobId: string, outcome: { status: SourceSyncStatus; error: string | null; stats: SourceSyncStats }): Promise<void> {
    await this.db
      .updateTable('sources')
      .set({ last_sync_status: outcome.status, last_sync_error: outcome.error, last_sync_stats: JSON.stringify(outcome.stats), last_sync_finished_at: new Date() })
      .where('id', '=', id)
      .where('last_sync_job_id', '=', jobId)
      .execute();
  }

  /** What earlier syncs learnt of these pages (without their links: those are read when needed), by URL. */
  async records(sourceId: string, urls: readonly string[]): Promise<Map<string, SourcePageRecord>> {
    if (urls.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('source_pages')
      .select(PAGE_RECORD_COLUMNS)
      .where('source_id', '=', sourceId)
      .where('url', 'in', [...urls])
      .execute();
    return new Map(rows.map((row) => [row.url, row]));
  }

  /** The links stored for these pages (a page answered 304 still leads on), by URL. */
  async links(sourceId: string, urls: readonly string[]): Promise<Map<string, string[]>> {
    if (urls.length === 0) return new Map();
    const rows = await this.db.selectFrom('source_pages').select(['url', 'links']).where('source_id', '=', sourceId).where('url', 'in', [...urls]).execute();
    return new Map(rows.map((row) => [row.url, Array.isArray(row.links) ? row.links.filter((l): l is string => typeof l === 'string') : []]));
  }

  async savePage(sourceId: string, sync: number, page: PageOutcome): Promise<void> {
    const values = {
      source_id: sourceId,
      url: page.url,
      status: page.status,
      document_id: page.documentId ?? null,
      final_url: page.finalUrl ?? null,
      reason: page.reason === undefined || page.reason === null ? null : page.reason.slice(0, 1000),
      http_status: page.httpStatus ?? null,
      etag: page.etag ?? null,
      last_modified: page.lastModified ?? null,
      body_hash: page.bodyHash ?? null,
      sitemap_lastmod: page.sitemapLastmod ?? null,
      in_sitemap: page.inSitemap ?? false,
      links: page.links === undefined || page.links === null ? null : JSON.stringify(page.links),
      missing_syncs: 0,
      last_sync: sync,
      updated_at: new Date(),
    };
    const { source_id: _s, url: _u, ...update } = values;
    await this.db
      .insertInto('source_pages')
      .values(values)
      .onConflict((oc) =>
        oc.columns(['source_id', 'url']).doUpdateSet(
          page.links === undefined ? (({ links: _l, ...rest }) => rest)(update) : update,
        ),
      )
      .execute();
  }

  /**
   * Records that sync `sync` saw these pages unchanged (their validators refreshed): one statement
   * for many pages, so an unchanged site costs few writes.
   */
  async touchPages(
    sourceId: string,
    sync: number,
    pages: ReadonlyArray<{ url: string; etag: string | null; lastModified: string | null; sitemapLastmod: string | null; inSitemap: boolean }>,
  ): Promise<void> {
    if (pages.length === 0) return;
    await sql`
      update source_pages p set
        status = 'ok', reason = null, last_sync = ${sync}, missing_syncs = 0, updated_at = now(),
        etag = coalesce(t.etag, p.etag), last_modified = coalesce(t.last_modified, p.last_modified),
        sitemap_lastmod = t.sitemap_lastmod, in_sitemap = t.in_sitemap
      from unnest(${pages.map((p) => p.url)}::text[], ${pages.map((p) => p.etag)}::text[], ${pages.map((p) => p.lastModified)}::text[],
                  ${pages.map((p) => p.sitemapLastmod)}::text[], ${pages.map((p) => p.inSitemap)}::boolean[])
        as t(url, etag, last_modified, sitemap_lastmod, in_sitemap)
      where p.source_id = ${sourceId} and p.url = t.url`.execute(this.db);
  }

  /**
   * After a complete discovery: every stored page this sync did not see is one sync more missing.
   * Returns the pages missing from two syncs running (to remove) and marks them removed.
   */
  async markMissing(sourceId: string, sync: number): Promise<Array<{ url: string; document_id: string | null }>> {
    await this.db
      .updateTable('source_pages')
      .set((eb) => ({ missing_syncs: eb('missing_syncs', '+', 1), last_sync: sync }))
      .where('source_id', '=', sourceId)
      .where('last_sync', '<', sync)
      .where('status', 'in', ['ok', 'failed'])
      .execute();
    const gone = await this.db
      .selectFrom('source_pages')
      .select(['url', 'document_id'])
      .where('source_id', '=', sourceId)
      .where('last_sync', '=', sync)
      .where('missing_syncs', '>=', 2)
      .where('status', 'in', ['ok', 'failed'])
      .execute();
    for (let i = 0; i < gone.length; i += 500) {
      await this.db
        .updateTable('source_pages')
        .set({ status: 'removed', reason: 'Missing from the site on two syncs running', document_id: null, updated_at: new Date() })
        .where('source_id', '=', sourceId)
        .where('url', 'in', gone.slice(i, i + 500).map((row) => row.url))
        .execute();
    }
    return gone;
  }

  /**
   * After a complete listing that is the whole truth (a Confluence space): every stored page this
   * sync did not see is gone; marked removed (its document was removed with it).
   */
  async markUnlisted(sourceId: string, sync: number, reason: string): Promise<void> {
    await this.db
      .updateTable('source_pages')
      .set({ status: 'removed', reason, document_id: null, last_sync: sync, updated_at: new Date() })
      .where('source_id', '=', sourceId)
      .where('last_sync', '<', sync)
      .where('status', 'in', ['ok', 'failed'])
      .execute();
  }

  /** The pages that failed in sync `sync`, by URL. */
  async failures(sourceId: string, sync: number, page: { limit: number; afterUrl?: string }): Promise<{ failures: SourcePageRecord[]; nextUrl: string | null }> {
    let query = this.db
      .selectFrom('source_pages')
      .select(PAGE_RECORD_COLUMNS)
      .where('source_id', '=', sourceId)
      .where('last_sync', '=', sync)
      // Failed in this sync: a failed page it did not see (a broken link since fixed) is only
      // marked missing by it (missing_syncs counts up), which is no failure of this sync.
      .where('missing_syncs', '=', 0)
      .where('status', '=', 'failed');
    if (page.afterUrl !== undefined) query = query.where('url', '>', page.afterUrl);
    const rows = await query.orderBy('url').limit(page.limit + 1).execute();
    const more = rows.length > page.limit;
    const listed = more ? rows.slice(0, page.limit) : rows;
    return { failures: listed, nextUrl: more ? listed[listed.length - 1]!.url : null };
  }

  async countPages(sourceId: string): Promise<number> {
    const row = await this.db
      .selectFrom('source_pages')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('source_id', '=', sourceId)
      .where('status', '=', 'ok')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
