/**
 * The wiki import job: every current page of a Confluence space becomes a document
 * (`wiki:<spaceKey>:<pageId>`) in the requested namespace.
 *
 * - Unchanged pages cost a hash lookup: a page is recognised from a digest of its storage body,
 *   title and metadata (version included), so it is neither converted, split nor embedded.
 * - Listing responses are fetched one ahead of processing, and each is written in groups, the
 *   next group being converted, split and embedded while the previous one is written.
 * - Pages that disappeared from the space are removed, but only after a complete listing: an
 *   import that stops half-way never deletes anything.
 * - A page that fails is counted and logged and does not stop the import, unless most pages fail.
 * - The job is idempotent: run again after a crash, it skips what it already wrote.
 */
import { createHash } from 'node:crypto';
import { STORAGE_CONVERTER_VERSION, storageToMarkdown } from '@kb/content';
import type { JobProgress } from '@kb/db';
import { AppError } from '../errors.ts';
import { endLoad, type BulkDocumentInput, type IngestionService, type IngestResult } from '../ingestion/ingestion.service.ts';
import { WritePipeline } from '../ingestion/pipeline.ts';
import type { JobContext, JobHandler } from '../jobs/job-runner.ts';
import type { Logger } from '../logger.ts';
import type { Namespace } from '../namespaces.ts';
import { ConfluenceClient, type ConfluenceClientOptions, type WikiPage, type WikiSpace } from './confluence-client.ts';

export interface WikiSettings {
  baseUrl?: string | undefined;
  email?: string | undefined;
  apiToken?: string | undefined;
}

/** Documents written per transaction. */
export const WIKI_WRITE_GROUP = 25;

/** The WIKI_* variables that are not set. */
export function missingWikiSettings(settings: WikiSettings): string[] {
  const missing: string[] = [];
  if (!settings.baseUrl) missing.push('WIKI_BASE_URL');
  if (!settings.email) missing.push('WIKI_EMAIL');
  if (!settings.apiToken) missing.push('WIKI_API_TOKEN');
  return missing;
}

/** An import that cannot succeed as asked (unknown space, most pages failing, ...). */
export class WikiImportError extends Error {
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
    this.name = 'WikiImportError';
  }
}

export function wikiSlug(spaceKey: string, pageId: string): string {
  return `wiki:${spaceKey}:${pageId}`;
}

function sourceDigest(page: WikiPage): string {
  return createHash('sha256').update(STORAGE_CONVERTER_VERSION).update('\u0000').update(page.body).digest('hex');
}

export interface WikiImportOptions {
  settings: WikiSettings;
  ingestion: IngestionService;
  /** Client options beyond the credentials (tests inject fetch, sleep, ...). */
  client?: Partial<ConfluenceClientOptions>;
}

export function createWikiImportHandler(options: WikiImportOptions): JobHandler<'wiki'> {
  return (context) => importSpace(context, options);
}

async function importSpace(context: JobContext<'wiki'>, options: WikiImportOptions): Promise<JobProgress> {
  const { payload, signal, logger } = context;
  const { spaceKey, namespace } = payload;
  const missing = missingWikiSettings(options.settings);
  if (missing.length > 0) throw new WikiImportError(`Wiki import is not configured here: set ${missing.join(', ')}`);
  const client = wikiClient(options, { logger, onRetry: (message) => context.noteError(message) });
  const { space, progress, removed, failures, embeddingOutage } = await syncSpace({
    client,
    spaceKey,
    namespace,
    ingestion: options.ingestion,
    signal,
    logger,
    onProgress: (figures) => context.progress(figures),
  });
  logger.info({ spaceKey: space.key, namespace, ...progress, removed }, 'wiki space imported');

  if (progress.failed > 0 && progress.failed * 2 > progress.total) {
    throw new WikiImportError(
      `${progress.failed} of ${progress.total} pages failed to import (${failures.join('; ')})`,
      embeddingOutage,
    );
  }
  return progress;
}

/** A client for the configured Confluence site (the settings checked by missingWikiSettings first). */
export function wikiClient(options: Pick<WikiImportOptions, 'settings' | 'client'>, extra: Partial<ConfluenceClientOptions> = {}): ConfluenceClient {
  return new ConfluenceClient({
    baseUrl: options.settings.baseUrl!,
    email: options.settings.email!,
    apiToken: options.settings.apiToken!,
    ...extra,
    ...options.client,
  });
}

export interface SpaceSyncInput {
  client: ConfluenceClient;
  spaceKey: string;
  namespace: Namespace;
  ingestion: IngestionService;
  signal: AbortSignal;
  logger: Logger;
  onProgress(progress: JobProgress): void;
  /** Told of each written group's pages and their results, in order (a source records them). */
  onWritten?(pages: readonly WikiPage[], results: ReadonlyArray<IngestResult | Error>): Promise<void>;
}

export interface SpaceSyncResult {
  space: WikiSpace;
  progress: JobProgress;
  /** Documents removed: pages gone from the space. */
  removed: number;
  /** The first few failures, in words. */
  failures: string[];
  /** Whether a page failed because the embedding service was down (worth trying again). */
  embeddingOutage: boolean;
}

/**
 * Brings a namespace up to date with every current page of a space (wiki imports and Confluence
 * sources): unchanged pages skipped by their digest, changed and new ones converted and
 * embedded, pages gone from the space removed after a complete listing.
 */
export async function syncSpace(input: SpaceSyncInput): Promise<SpaceSyncResult> {
  const { client, spaceKey, namespace, signal, logger } = input;
  const space = await client.getSpace(spaceKey, signal);
  if (!space) {
    throw new WikiImportError(`Wiki space "${spaceKey}" was not found (or the configured account cannot see it)`);
  }

  const progress: JobProgress = { total: 0, done: 0, skipped: 0, failed: 0 };
  const seen = new Set<string>();
  const prefix = `wiki:${space.key}:`;
  const failures: string[] = [];
  let embeddingOutage = false;

  const record = async (results: Array<IngestResult | Error>, pages: WikiPage[]) => {
    for (const [i, result] of results.entries()) {
      if (result instanceof Error) {
        progress.failed++;
        if (result instanceof AppError && result.code === 'SERVICE_UNAVAILABLE') embeddingOutage = true;
        if (failures.length < 3) failures.push(`page ${pages[i]!.id}: ${result.message}`);
        logger.warn({ err: result, pageId: pages[i]!.id }, 'wiki page failed');
      } else if (result.skipped) {
        progress.skipped++;
      } else {
        progress.done++;
      }
    }
    await input.onWritten?.(pages, results);
    input.onProgress(progress);
  };

  // Groups are written while the next ones are being prepared. A large first import may have
  // the embedded store build its vector index once at the end (BulkLoad).
  const load = input.ingestion.bulkLoad();
  const pipeline = new WritePipeline();
  try {
    for await (const batch of prefetch(client.listPages(space.id, signal))) {
      signal.throwIfAborted();
      progress.total += batch.length;
      input.onProgress(progress);
      for (let i = 0; i < batch.length; i += WIKI_WRITE_GROUP) {
        const pages = batch.slice(i, i + WIKI_WRITE_GROUP).filter((page) => {
          const slug = wikiSlug(space.key, page.id);
          if (seen.has(slug)) {
            progress.total--; // listed twice (the space changed while being listed)
            return false;
          }
          seen.add(slug);
          return true;
        });
        const inputs: BulkDocumentInput[] = pages.map((page) => ({
          namespace,
          slug: wikiSlug(space.key, page.id),
          title: page.title.trim() || `Page ${page.id}`,
          metadata: { spaceKey: space.key, pageId: page.id, version: page.version, url: page.url, parentId: page.parentId },
          sourceHash: sourceDigest(page),
          content: () => storageToMarkdown(page.body, { baseUrl: client.wikiBase }),
        }));
        await pipeline.push(input.ingestion.ingestMany(inputs, signal, { load, method: 'wiki' }).then((results) => record(results, pages)));
      }
    }
    await pipeline.drain();
  } catch (error) {
    // No write may still be running when this fails.
    await pipeline.settle();
    throw error;
  } finally {
    await endLoad(load, logger);
  }

  // The listing is complete: what was not listed is gone from the space.
  const removed = await input.ingestion.removeMissing(namespace, prefix, seen);
  input.onProgress(progress);
  return { space, progress, removed, failures, embeddingOutage };
}

/** Iterates `source` while its next item is already being fetched. */
async function* prefetch<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = source.next();
  try {
    while (true) {
      const current = await next;
      if (current.done) return;
      next = source.next();
      // An early stop must not leave the fetch in flight as an unhandled rejection.
      next.catch(() => undefined);
      yield current.value;
    }
  } finally {
    await source.return(undefined).catch(() => undefined);
  }
}
