/**
 * One sync of a Confluence source: the space's pages through the same client and conversion as a
 * wiki import (syncSpace), with what a source adds: each page's outcome recorded, so that the
 * failures of the last sync can be read by page, and the documents marked as the source's.
 *
 * Incremental as wiki imports are: a page is recognised from a digest of its storage body, its
 * title and its metadata (its version among them), so an unchanged space costs its listing and
 * no conversion or embedding call. The listing is complete when it ends, so pages gone from the
 * space are removed at once; a listing that stops half-way removes nothing.
 */
import { WikiError, type ConfluenceClientOptions } from '../wiki/confluence-client.ts';
import { missingWikiSettings, syncSpace, WikiImportError, wikiClient, wikiSlug, type WikiSettings } from '../wiki/wiki-import.ts';
import type { IngestionService } from '../ingestion/ingestion.service.ts';
import type { Logger } from '../logger.ts';
import type { Namespace } from '../namespaces.ts';
import type { SourceSyncStats } from '@kb/db';
import type { ConfluenceSettings } from './settings.ts';
import { EMPTY_STATS, type SourcesRepository } from './sources.repository.ts';
import { SourceSyncError, type SyncResult } from './website-sync.ts';

export interface ConfluenceSyncDeps {
  sources: SourcesRepository;
  ingestion: IngestionService;
  /** The server's Confluence account (WIKI_BASE_URL, WIKI_EMAIL, WIKI_API_TOKEN). */
  wiki: WikiSettings;
  /** Client options beyond the credentials (tests inject sleep, page sizes, ...). */
  wikiClient?: Partial<ConfluenceClientOptions>;
  logger: Logger;
  /** Told of each failed request that will be tried again (the job shows it). */
  onRetry?: (message: string) => void;
}

export interface ConfluenceTarget {
  id: string;
  namespace: Namespace;
  settings: ConfluenceSettings;
  sync: number;
}

export async function syncConfluence(target: ConfluenceTarget, deps: ConfluenceSyncDeps, signal: AbortSignal, onProgress: (stats: SourceSyncStats) => void): Promise<SyncResult> {
  const missing = missingWikiSettings(deps.wiki);
  if (missing.length > 0) throw new SourceSyncError(`Confluence sources are not configured on this server: set ${missing.join(', ')}`);
  const { spaceKey } = target.settings;
  const stats: SourceSyncStats = { ...EMPTY_STATS };
  const client = wikiClient({ settings: deps.wiki, ...(deps.wikiClient ? { client: deps.wikiClient } : {}) }, {
    logger: deps.logger,
    ...(deps.onRetry ? { onRetry: deps.onRetry } : {}),
  });

  let removed: number;
  try {
    ({ removed } = await syncSpace({
      client,
      spaceKey,
      namespace: target.namespace,
      ingestion: deps.ingestion,
      signal,
      logger: deps.logger,
      onProgress: (progress) => {
        stats.discovered = progress.total;
        stats.fetched = progress.total;
        stats.updated = progress.done;
        stats.unchanged = progress.skipped;
        stats.failed = progress.failed;
        onProgress(stats);
      },
      onWritten: async (pages, results) => {
        const confirmed: string[] = [];
        const unchanged: Parameters<SourcesRepository['touchPages']>[2][number][] = [];
        // What earlier syncs recorded of this batch's pages only: a space's records are never all held at once.
        const known = await deps.sources.records(
          target.id,
          pages.map((page) => page.url || wikiSlug(spaceKey, page.id)),
        );
        for (const [i, page] of pages.entries()) {
          const result = results[i]!;
          // A page's web link names it in the failures list (its slug when the API gave no link).
          const url = page.url || wikiSlug(spaceKey, page.id);
          const stored = known.get(url);
          const version = `version ${page.version}`;
          if (result instanceof Error) {
            await deps.sources.savePage(target.id, target.sync, {
              url,
              status: 'failed',
              reason: `It could not be ingested: ${result.message}`,
              documentId: stored?.document_id ?? null,
              lastModified: stored?.last_modified ?? null,
            });
            continue;
          }
          confirmed.push(result.documentId);
          if (result.skipped && stored?.status === 'ok' && stored.document_id === result.documentId) {
            unchanged.push({ url, etag: null, lastModified: version, sitemapLastmod: null, inSitemap: false });
          } else {
            await deps.sources.savePage(target.id, target.sync, { url, status: 'ok', documentId: result.documentId, finalUrl: url, lastModified: version });
          }
        }
        await deps.sources.touchPages(target.id, target.sync, unchanged);
        if (confirmed.length > 0) await deps.ingestion.recordSource(confirmed, target.id);
      },
    }));
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof WikiImportError || error instanceof WikiError) throw new SourceSyncError(error.message, error.transient);
    throw error;
  }
  stats.removed = removed;
  await deps.sources.markUnlisted(target.id, target.sync, 'Gone from the Confluence space');
  onProgress(stats);

  const ok = stats.updated + stats.unchanged;
  if (stats.failed > 0) {
    const note = `${stats.failed} page${stats.failed === 1 ? '' : 's'} failed (see the failures)`;
    return ok === 0 ? { status: 'failed', error: `Every page failed: ${note}`, stats } : { status: 'partial', error: `${note[0]!.toUpperCase()}${note.slice(1)}.`, stats };
  }
  return { status: 'done', error: null, stats };
}
