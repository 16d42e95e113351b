import { MAX_ALLOWED_ORIGINS, PUBLISHABLE_DEFAULTS } from '@kb/core';
import { z } from 'zod';
import { jsonBoolean, jsonInt, maxChars, nonBlankText, namespaceSchema } from '../../schemas.ts';

const limit = z.number().int().nullable();
const limitInput = jsonInt(0, 1_000_000_000).nullable();

const kindSchema = z.enum(['secret', 'publishable']);
const namespacesSchema = z.array(namespaceSchema).min(1).max(4);
const namespacesView = z.array(z.string()).nullable().meta({ description: 'The namespaces the key may use; null: all' });

/** The fields only publishable keys have, as listings show them. */
const publishableView = {
  key: z.string().optional().meta({ description: 'Publishable keys: the key itself (it is no secret: pages carry it)' }),
  allowedOrigins: z.array(z.string()).optional().meta({ description: 'Publishable keys: the sites that may use it' }),
  visitorRateLimitRpm: limit.optional().meta({ description: 'Publishable keys: questions one visitor (client address) may ask in any 60 seconds' }),
  visitorRateLimitRpd: limit.optional().meta({ description: 'Publishable keys: questions one visitor may ask in any 24 hours' }),
  dailyAnswerLimit: limit.optional().meta({ description: 'Publishable keys: answers the key may give in any 24 hours, across its visitors' }),
};

export const apiKeySchema = z
  .object({
    id: z.string(),
    label: z.string(),
    kind: kindSchema.meta({ description: 'secret: for servers (may be admin); publishable: for web pages (kb_pub_…)' }),
    keyPrefix: z.string().meta({ description: 'The first characters of the key, to recognise it' }),
    admin: z.boolean(),
    namespaces: namespacesView,
    requestCount: z.number().int(),
    rateLimitRpm: limit,
    rateLimitRpd: limit,
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    ...publishableView,
  })
  .meta({ id: 'ApiKey' });

/** Fields a key may be created or updated with, beyond its kind and admin rights. */
const settings = {
  namespaces: namespacesSchema
    .nullable()
    .optional()
    .meta({
      description:
        'The namespaces the key may search, chat in, read the FAQ of and ingest into (a 403 outside them). Secret keys: absent or null is all (admin keys take none). Publishable keys: required.',
    }),
  rateLimitRpm: limitInput.optional().meta({ description: 'Requests allowed in any 60 seconds; null or absent is unlimited, 0 blocks the key' }),
  rateLimitRpd: limitInput.optional().meta({ description: 'Requests allowed in any 24 hours; null or absent is unlimited, 0 blocks the key' }),
  allowedOrigins: z
    .array(nonBlankText(300))
    .min(1)
    .max(MAX_ALLOWED_ORIGINS)
    .optional()
    .meta({
      description:
        'Publishable keys (required): the sites that may use the key, as origins: https://docs.example.com, https://*.example.com (any subdomain), http://localhost:* (any port). Never "*".',
    }),
  visitorRateLimitRpm: limitInput
    .optional()
    .meta({ description: `Publishable keys: questions (chat and search) one visitor may ask in any 60 seconds; default ${PUBLISHABLE_DEFAULTS.visitorRateLimitRpm}, null unlimited, 0 none` }),
  visitorRateLimitRpd: limitInput
    .optional()
    .meta({ description: `Publishable keys: questions one visitor may ask in any 24 hours; default ${PUBLISHABLE_DEFAULTS.visitorRateLimitRpd}, null unlimited, 0 none` }),
  dailyAnswerLimit: limitInput
    .optional()
    .meta({ description: `Publishable keys: answers the key may give in any 24 hours, across its visitors; default ${PUBLISHABLE_DEFAULTS.dailyAnswerLimit}, null unlimited, 0 none` }),
};

export const createApiKeyInput = z.strictObject({
  label: nonBlankText(200, 'label must not be empty'),
  kind: kindSchema.optional().meta({ description: 'secret (default): for servers; publishable: for web pages, bound to allowedOrigins and namespaces' }),
  admin: jsonBoolean().optional().meta({ description: 'Admin keys may call the admin endpoints. Default false; never for publishable keys.' }),
  ...settings,
});

export const updateApiKeyInput = z.strictObject({
  id: maxChars(z.string().min(1), 100),
  label: nonBlankText(200, 'label must not be empty').optional(),
  ...settings,
});

export const createdApiKeySchema = z
  .object({
    id: z.string(),
    label: z.string(),
    kind: kindSchema,
    key: z.string().meta({ description: 'The key: kb_ (secret) or kb_pub_ (publishable) followed by 40 base62 characters. A secret key is shown only here, once.' }),
    admin: z.boolean(),
    namespaces: namespacesView,
    rateLimitRpm: limit,
    rateLimitRpd: limit,
    createdAt: z.string(),
    allowedOrigins: publishableView.allowedOrigins,
    visitorRateLimitRpm: publishableView.visitorRateLimitRpm,
    visitorRateLimitRpd: publishableView.visitorRateLimitRpd,
    dailyAnswerLimit: publishableView.dailyAnswerLimit,
  })
  .meta({ id: 'CreatedApiKey' });
