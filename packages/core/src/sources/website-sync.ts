/**
 * One sync of a website source: discover pages (sitemaps and link following, within the
 * source's scope and robots.txt), fetch each through the guarded fetcher (SSRF checks on every
 * hop, the size and time limits of URL ingestion), and bring the namespace up to date.
 *
 * Incremental at every step, so that an unchanged site costs requests and no embedding call:
 * - a page whose sitemap `lastmod` is the one stored is not fetched;
 * - every other known page is fetched conditionally (If-None-Match / If-Modified-Since): a 304
 *   is unchanged;
 * - a fetched body whose SHA-256 is the stored one is not converted; and the pipeline's content
 *   hash skips a converted page whose Markdown did not change.
 *
 * Nothing is lost on failure: a page that fails keeps its stored document, and pages are removed
 * only when the site says so (404/410) or after a complete discovery misses them twice running.
 * A sync cut short (time budget, page cap, shutdown) removes nothing. Run again after a restart,
 * it starts over: every page it had done is recognised as unchanged, and documents are keyed by
 * URL, so nothing is duplicated.
 */
import { createHash } from 'node:crypto';
import { convertFileOffThread, FileConversionError, htmlToMarkdown, pageLinks } from '@kb/content';
import type { SourceSyncStats, SourceSyncStatus } from '@kb/db';
import {
  describeFetchFailure,
  FetchFailedError,
  FetchRefusedError,
  guardedFetch,
  type FetchedPage,
  type GuardedFetchOptions,
} from '../fetch/index.ts';
import type { IngestionService } from '../ingestion/ingestion.service.ts';
import type { Logger } from '../logger.ts';
import type { Namespace } from '../namespaces.ts';
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, SOURCE_USER_AGENT, type RobotsRules } from './robots.ts';
import { MAX_QUERY_VARIANTS, normalizeUrl, outOfScope, scopeOf, type Scope } from './scope.ts';
import type { WebsiteSettings } from './settings.ts';
import { parseSitemap, SitemapError, type SitemapEntry } from './sitemap.ts';
import { EMPTY_STATS, type PageOutcome, type SourcePageRecord, type SourcesRepository } from './sources.repository.ts';

/**
 * Records of earlier syncs are read this many pages at a time, as the pages come up, and unchanged
 * pages' stored links are read once this many wait: a sync holds a bounded number of them,
 * whatever the size of the site.
 */
export const RECORD_GROUP = 500;

/** Sitemaps one sync reads at most (an index of indexes of ...), and how deep indexes nest. */
export const MAX_SITEMAPS = 100;
export const MAX_SITEMAP_DEPTH = 3;

/** A page as Markdown, with what its conversion adds to the document's metadata (a file's format and pages). */
export interface ConvertedPage {
  markdown: string;
  title: string | null;
  metadata?: Record<string, unknown>;
}

/** The last segment of a URL's path, decoded: a linked file's name (its extension says its type when the server does not). */
function fileNameOf(url: string): string | undefined {
  const segment = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(segment) || undefined;
  } catch {
    return segment || undefined;
  }
}

/**
 * A linked file (a PDF) converted as an uploaded file is: in the files worker pool, bounded in
 * time and memory, its type sniffed from its bytes (the declared type alone is not trusted), a
 * PDF's text page by page with page markers, so that its chunks keep their page and citations
 * point at url#page=N. A file that cannot be read throws a FileConversionError with the reason.
 */
async function convertLinkedFile(page: FetchedPage): Promise<ConvertedPage> {
  const filename = fileNameOf(page.url);
  const converted = await convertFileOffThread({ bytes: page.bytes ?? new Uint8Array(), mediaType: page.contentType, filename });
  return {
    markdown: converted.markdown,
    title: converted.title ?? filename ?? null,
    metadata: { format: converted.format, ...(converted.pages !== undefined ? { pages: converted.pages } : {}) },
  };
}

/**
 * How a page's body becomes Markdown, by media type. A type missing here is not requested
 * (Accept) and a page of it fails with a reason. Files (FILE_PAGE_TYPES) arrive as bytes and go
 * through the file pipeline.
 */
export const PAGE_CONVERTERS: Record<string, (page: FetchedPage) => ConvertedPage | Promise<ConvertedPage>> = {
  'text/html': (page) => {
    const converted = htmlToMarkdown(page.body, { baseUrl: page.url });
    return { markdown: converted.markdown, title: converted.title };
  },
  'application/xhtml+xml': (page) => PAGE_CONVERTERS['text/html']!(page),
  'text/markdown': (page) => ({ markdown: page.body, title: /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(page.body)?.[1]?.trim() ?? null }),
  'text/plain': (page) => ({ markdown: page.body, title: null }),
  'application/pdf': convertLinkedFile,
  // Only asked for at a URL ending in .pdf (servers send PDFs so); the bytes decide what it is.
  'application/octet-stream': convertLinkedFile,
};
/** Types fetched as bytes (up to KB_MAX_FILE_BYTES) rather than text. */
export const FILE_PAGE_TYPES = ['application/pdf', 'application/octet-stream'];
const PAGE_TYPES = Object.keys(PAGE_CONVERTERS).filter((type) => type !== 'application/octet-stream');
const PDF_URL_TYPES = [...PAGE_TYPES, 'application/octet-stream'];
/** What a page is asked for as: an untyped download only where the URL names a PDF. */
function acceptFor(url: string): readonly string[] {
  return /\.pdf$/i.test(new URL(url).pathname) ? PDF_URL_TYPES : PAGE_TYPES;
}
const SITEMAP_TYPES = ['application/xml', 'text/xml', 'text/plain', 'application/rss+xml', 'application/atom+xml'];

/** Waiting and the time, injectable so that tests observe crawl delays without waiting. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }),
};

export interface CrawlLimits {
  /** Requests in flight to one host at a time (1 whenever robots.txt asks for a crawl-delay). */
  hostConcurrency: number;
  /** Least time between two requests to one host (a larger robots.txt crawl-delay wins). */
  minIntervalMs: number;
  /** Total time one sync may take; then it stops, keeps what it did, and removes nothing. */
  maxSyncMs: number;
}

export interface WebsiteSyncDeps {
  sources: SourcesRepository;
  ingestion: IngestionService;
  fetch: Omit<GuardedFetchOptions, 'accept' | 'signal' | 'conditional' | 'userAgent'>;
  limits: CrawlLimits;
  clock?: Clock;
  logger: Logger;
}

export interface SyncTarget {
  id: string;
  namespace: Namespace;
  settings: WebsiteSettings;
  /** This sync's number (pages it sees record it). */
  sync: number;
}

export interface SyncResult {
  status: SourceSyncStatus;
  error: string | null;
  stats: SourceSyncStats;
}

/** A sync that cannot go on (the site unreachable, the sitemap unusable, everything forbidden). */
export class SourceSyncError extends Error {
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
    this.name = 'SourceSyncError';
  }
}

interface FrontierItem {
  url: string;
  depth: number;
  lastmod?: string;
  inSitemap: boolean;
}

/** Spacing and concurrency of requests per host. */
class HostGate {
  private readonly hosts = new Map<string, { next: number; active: number; waiting: Array<() => void>; interval: number; concurrency: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: CrawlLimits,
  ) {}

  configure(host: string, crawlDelaySeconds: number | undefined): void {
    const delayMs = crawlDelaySeconds === undefined ? 0 : crawlDelaySeconds * 1000;
    const interval = Math.max(this.limits.minIntervalMs, delayMs);
    const concurrency = delayMs > 0 ? 1 : Math.max(1, this.limits.hostConcurrency);
    const state = this.hosts.get(host);
    if (state) {
      // Learnt from robots.txt after its own request went through the gate.
      state.interval = interval;
      state.concurrency = concurrency;
      state.next = Math.max(state.next, this.clock.now() + (delayMs > 0 ? interval : 0));
      return;
    }
    this.hosts.set(host, { next: 0, active: 0, waiting: [], interval, concurrency });
  }

  async acquire(host: string, signal: AbortSignal): Promise<() => void> {
    const state = this.hosts.get(host)!;
    while (state.active >= state.concurrency) await new Promise<void>((resolve) => state.waiting.push(resolve));
    state.active++;
    const now = this.clock.now();
    // Without a delay to keep, a fresh clock reading; with one, the time the last request was allowed.
    const start = Math.max(now, state.next);
    state.next = start + state.interval;
    try {
      if (start > now) await this.clock.sleep(start - now, signal);
    } catch (error) {
      this.release(state);
      throw error;
    }
    return () => this.release(state);
  }

  private release(state: { active: number; waiting: Array<() => void> }): void {
    state.active--;
    state.waiting.shift()?.();
  }
}

function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The 96 first bits of a URL's SHA-256, a 12-character string: what a sync keeps of every URL it
 * has seen (a fifth to a tenth of the URL itself; a collision among a million URLs has odds of
 * about 1 in 10^17).
 */
function urlKey(url: string): string {
  return createHash('sha256').update(url).digest().toString('latin1', 0, 12);
}

/** A first-in first-out queue whose taking costs the same however long it is (Array#shift copies). */
class Queue<T> {
  private items: Array<T | undefined> = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    // Drop the taken half once it is most of the array.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** The next `n` items, not taken. */
  peek(n: number): T[] {
    return this.items.slice(this.head, this.head + n) as T[];
  }
}

function failureReason(error: unknown, fetch: WebsiteSyncDeps['fetch'], accept: readonly string[]): string {
  if (error instanceof FetchFailedError || error instanceof FetchRefusedError) return describeFetchFailure(error, { ...fetch, accept });
  return error instanceof Error ? error.message : String(error);
}

/** The path and query-string part a URL is counted under for query-string traps. */
function pathKey(url: string): { path: string; hasQuery: boolean } {
  const parsed = new URL(url);
  return { path: `${parsed.host}${parsed.pathname}`, hasQuery: parsed.search !== '' };
}

export async function syncWebsite(target: SyncTarget, deps: WebsiteSyncDeps, signal: AbortSignal, onProgress: (stats: SourceSyncStats) => void): Promise<SyncResult> {
  const clock = deps.clock ?? REAL_CLOCK;
  const { settings, sync } = target;
  const scope = scopeOf(settings);
  const stats: SourceSyncStats = { ...EMPTY_STATS };
  const gate = new HostGate(clock, deps.limits);
  const robots = new Map<string, Promise<RobotsRules>>();
  const log = deps.logger.child({ sourceId: target.id, sync });

  // The time budget ends discovery and fetching; what is done stays.
  const budget = new AbortController();
  const budgetTimer = setTimeout(() => budget.abort(new Error('time budget')), deps.limits.maxSyncMs);
  budgetTimer.unref();
  const stop = AbortSignal.any([signal, budget.signal]);

  const fetchOptions = (accept: readonly string[], conditional?: GuardedFetchOptions['conditional']): GuardedFetchOptions => ({
    ...deps.fetch,
    accept,
    ...(accept.includes('application/pdf') ? { binaryTypes: FILE_PAGE_TYPES } : {}),
    userAgent: SOURCE_USER_AGENT,
    signal: stop,
    ...(conditional ? { conditional } : {}),
  });

  /** robots.txt of an origin, fetched once per sync (RFC 9309: 4xx allows all, 5xx forbids all). */
  const rulesFor = (origin: string, host: string): Promise<RobotsRules> => {
    let rules = robots.get(origin);
    if (!rules) {
      const robotsUrl = `${origin}/robots.txt`;
      rules = (async () => {
        let result: RobotsRules;
        try {
          const release = await gateFor(host);
          try {
            const page = await guardedFetch(robotsUrl, fetchOptions(['text/plain']));
            result = parseRobots(robotsUrl, page.body);
          } finally {
            release();
          }
        } catch (error) {
          if (stop.aborted) throw error;
          if (error instanceof FetchFailedError && error.reason === 'status' && (error.status ?? 0) >= 400 && (error.status ?? 0) < 500) result = ALLOW_ALL;
          else if (error instanceof FetchFailedError && (error.reason === 'content-type' || error.reason === 'too-large')) result = ALLOW_ALL;
          else if (error instanceof FetchFailedError && error.reason === 'status') {
            log.warn({ origin, status: error.status }, 'robots.txt answered a server error: the host is not crawled this sync');
            result = { ...DISALLOW_ALL, refusal: `robots.txt answered ${error.status ?? 'a server error'}: the host is not crawled this sync (RFC 9309)` };
          } else {
            throw new SourceSyncError(`${origin} could not be reached: ${failureReason(error, deps.fetch, ['text/plain'])}`, true);
          }
        }
        gate.configure(host, result.crawlDelay);
        return result;
      })();
      robots.set(origin, rules);
    }
    return rules;
  };
  const configured = new Set<string>();
  const gateFor = async (host: string): Promise<() => void> => {
    if (!configured.has(host)) {
      configured.add(host);
      gate.configure(host, undefined);
    }
    return gate.acquire(host, stop);
  };

  // Discovery state. URLs are kept as urlKey()s once queued: what a sync holds per page of the site
  // is two short keys, plus the frontier of pages not yet visited.
  const frontier = new Queue<FrontierItem>();
  const seen = new Set<string>();
  const claimed = new Map<string, string>(); // key of the document key (final or canonical URL) -> key of the URL that claimed it
  const queryVariants = new Map<string, number>();
  let complete = true;
  let capped = false;
  let robotsRefused = 0;
  let okPages = 0;

  const enqueue = (raw: string, depth: number, extra: { lastmod?: string; inSitemap?: boolean } = {}): void => {
    const url = normalizeUrl(raw);
    if (url === null) return;
    const urlId = urlKey(url);
    if (seen.has(urlId) || outOfScope(url, scope) !== null) return;
    const { path, hasQuery } = pathKey(url);
    if (hasQuery) {
      const variants = queryVariants.get(path) ?? 0;
      if (variants >= MAX_QUERY_VARIANTS) return;
      queryVariants.set(path, variants + 1);
    }
    if (seen.size >= scope.maxPages) {
      capped = true;
      return;
    }
    seen.add(urlId);
    stats.discovered++;
    frontier.push({ url, depth, inSitemap: extra.inSitemap ?? false, ...(extra.lastmod ? { lastmod: extra.lastmod } : {}) });
  };

  const save = (outcome: PageOutcome) => deps.sources.savePage(target.id, sync, outcome);
  // Unchanged pages are recorded in groups (one statement each), written before anything reads them.
  let touched: Array<{ url: string; etag: string | null; lastModified: string | null; sitemapLastmod: string | null; inSitemap: boolean }> = [];
  const flushTouched = async () => {
    const group = touched;
    touched = [];
    await deps.sources.touchPages(target.id, sync, group);
  };
  const touch = async (page: (typeof touched)[number]) => {
    touched.push(page);
    if (touched.length >= 200) await flushTouched();
  };

  const fail = async (item: FrontierItem, reason: string, httpStatus: number | null, stored: SourcePageRecord | undefined) => {
    stats.failed++;
    // A failed page keeps its document and what was known of it, for the next sync.
    await save({
      url: item.url,
      status: 'failed',
      reason,
      httpStatus,
      documentId: stored?.document_id ?? null,
      finalUrl: stored?.final_url ?? null,
      etag: stored?.etag ?? null,
      lastModified: stored?.last_modified ?? null,
      bodyHash: stored?.body_hash ?? null,
      sitemapLastmod: null,
      inSitemap: item.inSitemap,
    });
  };

  // What earlier syncs learnt of each page, read for the next RECORD_GROUP pages of the frontier
  // at once when a page comes up whose record is not read yet; each is dropped once its page is taken.
  const records = new Map<string, Promise<SourcePageRecord | undefined>>();
  const recordOf = (url: string): Promise<SourcePageRecord | undefined> => {
    if (!records.has(url)) {
      const group = [url, ...frontier.peek(RECORD_GROUP - 1).map((next) => next.url)].filter((next) => !records.has(next));
      const rows = deps.sources.records(target.id, group);
      for (const next of group) {
        const record = rows.then((found) => found.get(next));
        record.catch(() => {}); // awaited by its page's worker, or by none when the sync stops first
        records.set(next, record);
      }
    }
    const record = records.get(url)!;
    records.delete(url);
    return record;
  };

  // Unchanged pages lead on through their stored links, read in groups: when the frontier runs dry,
  // or once a group is waiting.
  const deferred: FrontierItem[] = [];
  const followStored = (item: FrontierItem) => {
    if (item.depth < scope.maxDepth) deferred.push(item);
  };
  const expandDeferred = async () => {
    const group = deferred.splice(0, RECORD_GROUP);
    const links = await deps.sources.links(target.id, group.map((item) => item.url));
    for (const item of group) for (const link of links.get(item.url) ?? []) enqueue(link, item.depth + 1);
  };

  const processPage = async (item: FrontierItem): Promise<void> => {
    const stored = await recordOf(item.url);
    const parsed = new URL(item.url);
    const rules = await rulesFor(parsed.origin, parsed.host);
    if (!rules.isAllowed(item.url)) {
      robotsRefused++;
      await fail(item, rules.refusal ?? `robots.txt disallows it for the user agent ${SOURCE_USER_AGENT}`, null, stored);
      return;
    }
    const storedOk = stored?.status === 'ok' && stored.document_id !== null;
    // The sitemap says the page did not change since the stored copy.
    if (storedOk && item.lastmod !== undefined && stored.sitemap_lastmod === item.lastmod) {
      stats.unchanged++;
      okPages++;
      await touch({ url: item.url, etag: null, lastModified: null, sitemapLastmod: item.lastmod, inSitemap: item.inSitemap });
      followStored(item);
      return;
    }
    let page: FetchedPage;
    const accept = acceptFor(item.url);
    const release = await gateFor(parsed.host);
    try {
      stats.fetched++;
      page = await guardedFetch(
        item.url,
        fetchOptions(accept, storedOk ? { etag: stored.etag ?? undefined, lastModified: stored.last_modified ?? undefined } : undefined),
      );
    } catch (error) {
      if (stop.aborted) throw error;
      const status = error instanceof FetchFailedError ? (error.status ?? null) : null;
      // Gone: a stored page is removed; one never stored is a broken link, listed as a failure.
      if ((status === 404 || status === 410) && stored?.document_id) {
        await deps.ingestion.removeOfSource(target.id, [stored.document_id]);
        stats.removed++;
        await save({ url: item.url, status: 'removed', reason: `The server answered ${status}`, httpStatus: status, inSitemap: item.inSitemap });
        return;
      }
      await fail(item, failureReason(error, deps.fetch, accept), status, stored);
      return;
    } finally {
      release();
    }

    if (page.notModified && storedOk) {
      stats.unchanged++;
      okPages++;
      await touch({ url: item.url, etag: page.etag ?? null, lastModified: page.lastModified ?? null, sitemapLastmod: item.lastmod ?? null, inSitemap: item.inSitemap });
      followStored(item);
      return;
    }

    // Redirects and the canonical link name the page's document: two URLs of one page make one document.
    const finalUrl = normalizeUrl(page.url) ?? item.url;
    if (finalUrl !== item.url) {
      const why = outOfScope(finalUrl, scope);
      if (why !== null) {
        await fail(item, `It redirects out of the source's scope (${finalUrl.slice(0, 300)}: ${why})`, page.status, stored);
        return;
      }
      seen.add(urlKey(finalUrl));
    }
    const isHtml = page.contentType === 'text/html' || page.contentType === 'application/xhtml+xml';
    const found = isHtml ? pageLinks(page.body, page.url) : { links: [], canonical: null, noindex: false, nofollow: false };
    let key = finalUrl;
    if (found.canonical !== null) {
      const canonical = normalizeUrl(found.canonical);
      if (canonical !== null && outOfScope(canonical, scope) === null) key = canonical;
    }
    const links = found.nofollow ? [] : found.links.filter((link) => outOfScope(link, scope) === null);
    if (item.depth < scope.maxDepth) for (const link of links) enqueue(link, item.depth + 1);

    const keyId = urlKey(key);
    const itemId = urlKey(item.url);
    const owner = claimed.get(keyId);
    if (owner !== undefined && owner !== itemId) {
      const reason = `Same page as another URL of the source: both lead to ${key.slice(0, 300)} (a redirect or a canonical link)`;
      await save({ url: item.url, status: 'duplicate', finalUrl: key, reason, httpStatus: page.status, inSitemap: item.inSitemap, links });
      return;
    }
    claimed.set(keyId, itemId);
    if (found.noindex) {
      if (stored?.document_id) {
        await deps.ingestion.removeOfSource(target.id, [stored.document_id]);
        stats.removed++;
      }
      await save({ url: item.url, status: 'excluded', finalUrl: key, reason: 'The page asks not to be indexed (meta robots noindex)', httpStatus: page.status, inSitemap: item.inSitemap, links });
      return;
    }

    const bodyHash = sha256(page.bytes ?? page.body);
    const base = { url: item.url, finalUrl: key, httpStatus: page.status, etag: page.etag ?? null, lastModified: page.lastModified ?? null, bodyHash, sitemapLastmod: item.lastmod ?? null, inSitemap: item.inSitemap, links };
    if (storedOk && stored.body_hash === bodyHash && stored.final_url === key) {
      stats.unchanged++;
      okPages++;
      await save({ ...base, status: 'ok', documentId: stored.document_id });
      return;
    }
    const convert = PAGE_CONVERTERS[page.contentType];
    if (!convert) {
      await fail(item, `unsupported content type ${page.contentType}`, page.status, stored);
      return;
    }
    // A file served as text is not read as text: the declared type alone is not trusted.
    if (page.bytes === undefined && page.body.startsWith('%PDF-')) {
      await fail(item, `The content is a PDF, not ${page.contentType} as declared`, page.status, stored);
      return;
    }
    try {
      const { markdown, title, metadata } = await convert(page);
      const result = await deps.ingestion.ingest(
        { namespace: target.namespace, title: title ?? key, slug: key, content: markdown, metadata: { url: key, contentType: page.contentType, ...metadata } },
        stop,
        null,
        'source',
      );
      await deps.ingestion.recordSource([result.documentId], target.id);
      if (result.skipped) stats.unchanged++;
      else stats.updated++;
      okPages++;
      await save({ ...base, status: 'ok', documentId: result.documentId });
    } catch (error) {
      if (stop.aborted) throw error;
      // An encrypted, scanned or corrupt file is this page's failure, with the file pipeline's reason.
      const reason = error instanceof FileConversionError ? `The file could not be read: ${error.message}` : `It could not be ingested: ${error instanceof Error ? error.message : String(error)}`;
      await fail(item, reason, page.status, stored);
    }
  };

  try {
    // Sitemaps first: they list the pages (and their lastmod) the site wants found.
    if (settings.sitemapUrl) {
      try {
        await readSitemaps(settings.sitemapUrl, scope, rulesFor, gateFor, (url) => guardedFetch(url, fetchOptions(SITEMAP_TYPES)), (entry) =>
          enqueue(entry.loc, 0, { inSitemap: true, ...(entry.lastmod ? { lastmod: entry.lastmod } : {}) }),
        );
      } catch (error) {
        if (stop.aborted) throw error;
        const reason = error instanceof SitemapError || error instanceof SourceSyncError ? error.message : failureReason(error, deps.fetch, SITEMAP_TYPES);
        if (!settings.startUrl) throw error instanceof SourceSyncError ? error : new SourceSyncError(`The sitemap ${settings.sitemapUrl} could not be used: ${reason}`);
        // Link following still runs; discovery is incomplete, so nothing is removed.
        complete = false;
        stats.failed++;
        await save({ url: normalizeUrl(settings.sitemapUrl) ?? settings.sitemapUrl, status: 'failed', reason: `The sitemap could not be used: ${reason}`, inSitemap: false });
      }
    }
    if (settings.startUrl) {
      const start = normalizeUrl(settings.startUrl);
      if (start !== null) {
        const parsed = new URL(start);
        await rulesFor(parsed.origin, parsed.host); // an unreachable site fails the sync here, with its reason
        enqueue(start, 0);
      }
    }
    onProgress(stats);

    // Workers take pages in discovery order; one more is started per free slot.
    const workers = Math.max(1, deps.limits.hostConcurrency);
    let active = 0;
    let wake: (() => void) | undefined;
    let failure: unknown;
    await new Promise<void>((resolve) => {
      const pump = () => {
        while (failure === undefined && !stop.aborted && active < workers && (frontier.length > 0 || deferred.length > 0)) {
          const item = deferred.length >= RECORD_GROUP ? undefined : frontier.shift();
          active++;
          (item ? processPage(item) : expandDeferred())
            .catch((error: unknown) => {
              failure ??= error;
            })
            .finally(() => {
              active--;
              onProgress(stats);
              pump();
            });
        }
        if (active === 0) resolve();
      };
      wake = pump;
      pump();
    });
    void wake;
    await flushTouched();
    if (failure !== undefined && !stop.aborted) throw failure;
    if (signal.aborted) throw signal.reason;
    if (budget.signal.aborted) {
      return {
        status: 'partial',
        error: `The sync stopped at its time budget (${Math.round(deps.limits.maxSyncMs / 60_000)} min) with ${frontier.length} pages left; nothing was removed. The next sync goes on from the changed pages.`,
        stats,
      };
    }

    if (okPages === 0 && robotsRefused > 0 && robotsRefused === stats.failed) {
      throw new SourceSyncError(`robots.txt forbids every page of the source to the user agent ${SOURCE_USER_AGENT}; nothing was fetched or removed`);
    }
    if (complete && !capped) {
      const gone = await deps.sources.markMissing(target.id, sync);
      const documents = gone.map((row) => row.document_id).filter((id): id is string => id !== null);
      if (documents.length > 0) stats.removed += await deps.ingestion.removeOfSource(target.id, documents);
    }
    onProgress(stats);
    const notes = [
      ...(capped ? [`the page cap (${scope.maxPages}) was reached: pages beyond it were not visited and nothing missing was removed`] : []),
      ...(stats.failed > 0 ? [`${stats.failed} page${stats.failed === 1 ? '' : 's'} failed (see the failures)`] : []),
    ];
    if (okPages === 0 && stats.failed > 0) return { status: 'failed', error: `Every page failed: ${notes.join('; ')}`, stats };
    return { status: notes.length > 0 ? 'partial' : 'done', error: notes.length > 0 ? `${notes.join('; ')}.`.replace(/^./, (c) => c.toUpperCase()) : null, stats };
  } finally {
    clearTimeout(budgetTimer);
  }
}

/** Reads a sitemap (following an index, bounded in count and depth) and hands over each in-scope entry. */
async function readSitemaps(
  sitemapUrl: string,
  scope: Scope,
  rulesFor: (origin: string, host: string) => Promise<RobotsRules>,
  gateFor: (host: string) => Promise<() => void>,
  fetchXml: (url: string) => Promise<FetchedPage>,
  onEntry: (entry: SitemapEntry) => void,
): Promise<void> {
  const queue: Array<{ url: string; depth: number }> = [{ url: sitemapUrl, depth: 0 }];
  const read = new Set<string>();
  while (queue.length > 0 && read.size < MAX_SITEMAPS) {
    const { url, depth } = queue.shift()!;
    if (read.has(url)) continue;
    read.add(url);
    const parsed = new URL(url);
    await rulesFor(parsed.origin, parsed.host); // an unreachable site fails here with its reason
    const release = await gateFor(parsed.host);
    let page: FetchedPage;
    try {
      page = await fetchXml(url);
    } finally {
      release();
    }
    const sitemap = parseSitemap(page.body);
    if (sitemap.kind === 'index') {
      if (depth >= MAX_SITEMAP_DEPTH) continue;
      for (const entry of sitemap.entries) {
        const next = normalizeUrl(entry.loc, url);
        if (next !== null && scope.hosts.has(new URL(next).host.toLowerCase())) queue.push({ url: next, depth: depth + 1 });
      }
    } else {
      for (const entry of sitemap.entries) onEntry(entry);
    }
  }
}
