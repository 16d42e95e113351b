/**
 * What a source is, by kind. Settings are validated by kind when a source is created or changed
 * and again before every sync (a stored row may come from an older version of the service). A
 * new kind is a new member of the union and a sync handler: the API stays the same.
 */
import { z } from 'zod';
import { spaceKeySchema } from '../jobs/catalog.ts';
import { NAMESPACES } from '../namespaces.ts';

/** Most pages one sync of a website may visit, whatever its settings say. */
export const MAX_PAGES_LIMIT = 100_000;
export const DEFAULT_MAX_PAGES = 1_000;
export const DEFAULT_MAX_DEPTH = 5;
/** Shortest and longest schedule interval (minutes). */
export const MIN_SCHEDULE_MINUTES = 5;
export const MAX_SCHEDULE_MINUTES = 60 * 24 * 31;

const httpUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'must be an absolute http or https URL');

/** A path pattern: `*` matches any run of characters; matched against the URL's path and query. */
const pathPattern = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(500, 'must be at most 500 characters')
  .refine((value) => value.startsWith('/') || value.startsWith('*'), 'must start with "/" or "*" (it is matched against the path)');

export const websiteSettingsSchema = z
  .strictObject({
    startUrl: httpUrl.optional().meta({ description: 'Where link following starts' }),
    sitemapUrl: httpUrl.optional().meta({ description: 'A sitemap or sitemap index listing the pages' }),
    allowedHosts: z
      .array(z.string().trim().toLowerCase().min(1).max(253))
      .max(20)
      .optional()
      .meta({ description: "Hosts pages may be on (default: the start URL's and the sitemap's hosts)" }),
    pathPrefix: z
      .string()
      .trim()
      .max(500)
      .refine((value) => value.startsWith('/'), 'must start with "/"')
      .optional()
      .meta({ description: 'Only pages whose path starts with this (default: everything on the hosts)' }),
    include: z.array(pathPattern).max(50).optional().meta({ description: 'Only pages whose path matches one of these patterns (`*` matches anything)' }),
    exclude: z.array(pathPattern).max(50).optional().meta({ description: 'Never pages whose path matches one of these patterns' }),
    maxPages: z
      .number()
      .int()
      .min(1)
      .max(MAX_PAGES_LIMIT)
      .optional()
      .meta({ description: `Most pages one sync fetches (default ${DEFAULT_MAX_PAGES}, at most ${MAX_PAGES_LIMIT})` }),
    maxDepth: z
      .number()
      .int()
      .min(0)
      .max(50)
      .optional()
      .meta({ description: `Links followed from the start URL and sitemap pages, in hops (default ${DEFAULT_MAX_DEPTH}; 0: no link following)` }),
  })
  .refine((value) => value.startUrl !== undefined || value.sitemapUrl !== undefined, { message: 'Give startUrl, sitemapUrl or both' })
  .meta({ id: 'WebsiteSourceSettings' });

export type WebsiteSettings = z.infer<typeof websiteSettingsSchema>;

/**
 * A Confluence space, read with the server's Confluence account (WIKI_BASE_URL, WIKI_EMAIL,
 * WIKI_API_TOKEN, as wiki imports are): credentials are never part of a source's settings, so
 * they are never stored with it nor returned.
 */
export const confluenceSettingsSchema = z
  .strictObject({
    // The rule wiki imports take a space key by.
    spaceKey: spaceKeySchema.meta({ description: "The space's key, e.g. ENG" }),
  })
  .meta({ id: 'ConfluenceSourceSettings' });

export type ConfluenceSettings = z.infer<typeof confluenceSettingsSchema>;

export const SOURCE_KINDS = ['website', 'confluence'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const SETTINGS_BY_KIND = { website: websiteSettingsSchema, confluence: confluenceSettingsSchema } as const satisfies Record<SourceKind, z.ZodType>;

export const namespaceOfSource = z.enum(NAMESPACES);

export const scheduleMinutesSchema = z
  .number()
  .int()
  .min(MIN_SCHEDULE_MINUTES, `scheduleMinutes must be at least ${MIN_SCHEDULE_MINUTES}`)
  .max(MAX_SCHEDULE_MINUTES, `scheduleMinutes must be at most ${MAX_SCHEDULE_MINUTES} (31 days)`)
  .nullable();

/** Settings of `kind`, validated; throws a ZodError naming what is wrong. */
export function parseSourceSettings(kind: SourceKind, settings: unknown): WebsiteSettings | ConfluenceSettings {
  return SETTINGS_BY_KIND[kind].parse(settings);
}

export function isSourceKind(value: string): value is SourceKind {
  return (SOURCE_KINDS as readonly string[]).includes(value);
}
