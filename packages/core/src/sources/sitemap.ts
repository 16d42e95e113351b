/**
 * Sitemaps (sitemaps.org): a `<urlset>` of pages or a `<sitemapindex>` of further sitemaps, parsed
 * with fast-xml-parser with entity processing off (a document's own entities are never expanded,
 * so an XML bomb stays a few kilobytes of text) and DOCTYPEs refused outright.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface SitemapEntry {
  loc: string;
  lastmod?: string;
}

export type Sitemap = { kind: 'urlset'; entries: SitemapEntry[] } | { kind: 'index'; entries: SitemapEntry[] };

/** Entries one sitemap may hold (the protocol's own limit). */
export const MAX_SITEMAP_ENTRIES = 50_000;

export class SitemapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SitemapError';
  }
}

const parser = new XMLParser({
  processEntities: false,
  htmlEntities: false,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

function entriesOf(items: unknown): SitemapEntry[] {
  if (!Array.isArray(items)) return [];
  const entries: SitemapEntry[] = [];
  for (const item of items.slice(0, MAX_SITEMAP_ENTRIES)) {
    if (typeof item !== 'object' || item === null) continue;
    const { loc, lastmod } = item as { loc?: unknown; lastmod?: unknown };
    if (typeof loc !== 'string' || loc === '') continue;
    // The protocol escapes & as &amp; in loc; with entity processing off, the five XML entities are undone here.
    const unescaped = loc.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name]!);
    entries.push({ loc: unescaped, ...(typeof lastmod === 'string' && lastmod !== '' ? { lastmod } : {}) });
  }
  return entries;
}

/** Parses a sitemap; SitemapError says why a document is not one. */
export function parseSitemap(xml: string): Sitemap {
  if (/<!DOCTYPE/i.test(xml.slice(0, 4096))) throw new SitemapError('The sitemap declares a DOCTYPE (refused: sitemaps have none, and entity definitions are how XML bombs work)');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new SitemapError(`The sitemap is not well-formed XML (line ${valid.err.line}: ${valid.err.msg.slice(0, 200)})`);
  let document: Record<string, unknown>;
  try {
    document = parser.parse(xml) as Record<string, unknown>;
  } catch (error) {
    throw new SitemapError(`The sitemap could not be parsed: ${(error as Error).message.slice(0, 200)}`);
  }
  const urlset = document['urlset'];
  if (urlset !== undefined) return { kind: 'urlset', entries: typeof urlset === 'object' && urlset !== null ? entriesOf((urlset as { url?: unknown }).url) : [] };
  const index = document['sitemapindex'];
  if (index !== undefined) return { kind: 'index', entries: typeof index === 'object' && index !== null ? entriesOf((index as { sitemap?: unknown }).sitemap) : [] };
  throw new SitemapError('The document is XML but not a sitemap (no <urlset> or <sitemapindex>)');
}
