import { MAX_FAILURES_PAGE, MAX_SOURCES_PAGE, scheduleMinutesSchema, SOURCE_KINDS } from '@kb/core';
import { z } from 'zod';
import { cursorSchema, maxChars, namespaceSchema, nextCursorSchema, nonBlankText } from '../../schemas.ts';

export const sourceIdInput = z.strictObject({ id: maxChars(z.string().min(1), 100) });

const statsSchema = z
  .object({
    discovered: z.number().int().meta({ description: 'Pages found in scope (sitemaps and links)' }),
    fetched: z.number().int().meta({ description: 'Pages requested from the site' }),
    unchanged: z.number().int().meta({ description: 'Pages unchanged since the last sync (sitemap lastmod, 304, same content): no embedding' }),
    updated: z.number().int().meta({ description: 'Pages new or changed, stored again' }),
    removed: z.number().int().meta({ description: 'Pages removed with their chunks (404/410, or missing from two complete syncs running)' }),
    failed: z.number().int().meta({ description: 'Pages that could not be synced (listed with reasons by GET /sources/{id}/failures); their stored copy stays' }),
  })
  .meta({ id: 'SourceSyncPages' });

/**
 * The settings of the source's kind. Checked by the service against that kind's schema (the kind
 * is in the body on create, stored on change), so that a mistake is answered with the field and
 * the rule it breaks, as a union of the kinds' schemas could not.
 */
export const settingsInput = z.record(z.string(), z.unknown()).meta({
  description:
    'By kind. `website`: `startUrl` and/or `sitemapUrl`, `allowedHosts`, `pathPrefix`, `include`, `exclude`, `maxPages`, `maxDepth`. ' +
    "`confluence`: `spaceKey` (read with the server's WIKI_BASE_URL, WIKI_EMAIL and WIKI_API_TOKEN; credentials are never settings). See docs/sources.md.",
});

export const sourceSchema = z
  .object({
    id: z.string(),
    kind: z.enum(SOURCE_KINDS),
    name: z.string(),
    namespace: z.string().meta({ description: 'The namespace its documents go to' }),
    settings: z.record(z.string(), z.unknown()).meta({ description: 'The settings of its kind (`website`: startUrl, sitemapUrl, ...; `confluence`: spaceKey)' }),
    scheduleMinutes: z.number().int().nullable().meta({ description: 'Synced every this many minutes; null: only on demand' }),
    status: z.enum(['idle', 'queued', 'syncing']).meta({ description: '`queued` or `syncing` while a sync job is pending or running' }),
    lastSync: z
      .object({
        jobId: z.string().nullable().meta({ description: 'Its job in GET /ingest/jobs' }),
        status: z.enum(['running', 'done', 'partial', 'failed']).meta({
          description: '`partial`: some pages failed, or the sync stopped at its page cap or time budget (nothing was removed then)',
        }),
        error: z.string().nullable().meta({ description: 'Why it failed or is partial' }),
        startedAt: z.string().nullable(),
        finishedAt: z.string().nullable(),
        pages: statsSchema,
      })
      .nullable()
      .meta({ description: 'The sync in progress, or the last one; null before the first' }),
    nextSyncAt: z.string().nullable().meta({ description: 'When the schedule syncs it next (null without a schedule)' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Source' });

export const createSourceInput = z.strictObject({
  kind: z.enum(SOURCE_KINDS).meta({ description: 'What the source is: `website` (a docs site) or `confluence` (a Confluence space)' }),
  name: nonBlankText(200, 'name must not be empty'),
  namespace: namespaceSchema,
  settings: settingsInput,
  scheduleMinutes: scheduleMinutesSchema.optional().meta({ description: 'Sync every this many minutes (5 to 44,640); null or absent: only on demand' }),
  sync: z.boolean().optional().meta({ description: 'Queue a first sync at once (default true)' }),
});

export const updateSourceInput = sourceIdInput.extend({
  name: nonBlankText(200, 'name must not be empty').optional(),
  settings: settingsInput.optional().meta({ description: 'The whole settings object (it replaces the stored one)' }),
  scheduleMinutes: scheduleMinutesSchema.optional(),
});

export const listSourcesInput = z.strictObject({
  limit: z.number().int().min(1).optional().meta({ description: `Page size, default 50; above ${MAX_SOURCES_PAGE} it is clamped (see take)` }),
  cursor: cursorSchema.optional(),
});

export const failuresInput = sourceIdInput.extend({
  limit: z.number().int().min(1).optional().meta({ description: `Page size, default 50; above ${MAX_FAILURES_PAGE} it is clamped (see take)` }),
  cursor: cursorSchema.optional(),
});

export const failureSchema = z
  .object({
    url: z.string(),
    reason: z.string().meta({ description: 'Why the page could not be synced, in words' }),
    httpStatus: z.number().int().nullable().meta({ description: "The site's answer, when it answered" }),
    at: z.string(),
  })
  .meta({ id: 'SourceFailure' });

export { nextCursorSchema };

export const SOURCE_EXAMPLE = {
  id: '0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13',
  kind: 'website' as const,
  name: 'Product docs',
  namespace: 'user_docs',
  settings: { startUrl: 'https://docs.example.com/', sitemapUrl: 'https://docs.example.com/sitemap.xml', pathPrefix: '/', exclude: ['/blog/*'] },
  scheduleMinutes: 1440,
  status: 'idle' as const,
  lastSync: {
    jobId: '9e2c4b7d-1a03-4b6e-8f25-d4c1a7e93b50',
    status: 'done' as const,
    error: null,
    startedAt: '2026-12-01T03:00:00.000Z',
    finishedAt: '2026-12-01T03:02:10.000Z',
    pages: { discovered: 412, fetched: 412, unchanged: 398, updated: 14, removed: 1, failed: 0 },
  },
  nextSyncAt: '2026-12-02T03:00:00.000Z',
  createdAt: '2026-11-30T10:00:00.000Z',
  updatedAt: '2026-11-30T10:00:00.000Z',
};
