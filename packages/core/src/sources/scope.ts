/** Which URLs a website source covers, and the one form a URL is known by. Pure. */
import type { WebsiteSettings } from './settings.ts';
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_PAGES } from './settings.ts';

/**
 * Distinct query strings one path may be fetched with in a sync. Calendars, faceted search and
 * session ids make endless URLs of one page (query-string traps); a few variants are kept.
 */
export const MAX_QUERY_VARIANTS = 5;

/** The form a URL is known by: no fragment, default port dropped, host lower-case (URL does both). */
export function normalizeUrl(raw: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '') return null;
  url.hash = '';
  return url.href;
}

/** A `*` pattern as an anchored regular expression over path + query (no other metacharacter). */
function patternRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

export interface Scope {
  hosts: ReadonlySet<string>;
  pathPrefix: string;
  include: RegExp[];
  exclude: RegExp[];
  maxPages: number;
  maxDepth: number;
}

export function scopeOf(settings: WebsiteSettings): Scope {
  const hosts = new Set(settings.allowedHosts ?? []);
  if (hosts.size === 0) {
    for (const url of [settings.startUrl, settings.sitemapUrl]) if (url) hosts.add(new URL(url).host.toLowerCase());
  }
  return {
    hosts,
    pathPrefix: settings.pathPrefix ?? '/',
    include: (settings.include ?? []).map(patternRegExp),
    exclude: (settings.exclude ?? []).map(patternRegExp),
    maxPages: settings.maxPages ?? DEFAULT_MAX_PAGES,
    maxDepth: settings.maxDepth ?? DEFAULT_MAX_DEPTH,
  };
}

/** Why a normalized URL is out of scope, or null when it is in. */
export function outOfScope(url: string, scope: Scope): string | null {
  const parsed = new URL(url);
  if (!scope.hosts.has(parsed.host.toLowerCase())) return `host ${parsed.host} is not one of the source's hosts`;
  if (!parsed.pathname.startsWith(scope.pathPrefix)) return `path is outside ${scope.pathPrefix}`;
  const target = parsed.pathname + parsed.search;
  if (scope.include.length > 0 && !scope.include.some((re) => re.test(target))) return 'matches no include pattern';
  if (scope.exclude.some((re) => re.test(target))) return 'matches an exclude pattern';
  return null;
}
