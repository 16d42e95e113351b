export { BullSourceScheduler, SOURCE_SCHEDULE_ENTRY, sourceSchedulerId, StoreSourceScheduler } from './schedulers.ts';
export { ALLOW_ALL, DISALLOW_ALL, MAX_CRAWL_DELAY_S, parseRobots, SOURCE_USER_AGENT, SOURCE_USER_AGENT_TOKEN } from './robots.ts';
export type { RobotsRules } from './robots.ts';
export { MAX_QUERY_VARIANTS, normalizeUrl, outOfScope, scopeOf } from './scope.ts';
export {
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_PAGES,
  MAX_PAGES_LIMIT,
  MAX_SCHEDULE_MINUTES,
  MIN_SCHEDULE_MINUTES,
  SOURCE_KINDS,
  confluenceSettingsSchema,
  scheduleMinutesSchema,
  websiteSettingsSchema,
} from './settings.ts';
export type { ConfluenceSettings, SourceKind, WebsiteSettings } from './settings.ts';
export { syncConfluence } from './confluence-sync.ts';
export { MAX_SITEMAP_ENTRIES, parseSitemap, SitemapError } from './sitemap.ts';
export type { Sitemap, SitemapEntry } from './sitemap.ts';
export { EMPTY_STATS, SourcesRepository } from './sources.repository.ts';
export type { SourcePageRecord, SourceRecord } from './sources.repository.ts';
export { createSourceSyncHandler, DEFAULT_SOURCES_PAGE, MAX_FAILURES_PAGE, MAX_SOURCES_PAGE, SourcesService } from './sources.service.ts';
export type { SourceFailureView, SourceScheduler, SourceSyncDeps, SourceView } from './sources.service.ts';
export { FILE_PAGE_TYPES, MAX_SITEMAPS, PAGE_CONVERTERS, REAL_CLOCK, SourceSyncError, syncWebsite } from './website-sync.ts';
export type { Clock, ConvertedPage, CrawlLimits, SyncResult, SyncTarget, WebsiteSyncDeps } from './website-sync.ts';
