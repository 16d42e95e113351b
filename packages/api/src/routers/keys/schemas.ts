import { z } from 'zod';
import { jsonBoolean, jsonInt, maxChars } from '../../schemas.ts';

const limit = z.number().int().nullable();
const limitInput = jsonInt(0, 1_000_000_000).nullable();

export const apiKeySchema = z
  .object({
    id: z.string(),
    label: z.string(),
    keyPrefix: z.string().meta({ description: 'The first characters of the key, to recognise it' }),
    admin: z.boolean(),
    requestCount: z.number().int(),
    rateLimitRpm: limit,
    rateLimitRpd: limit,
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });

export const createApiKeyInput = z.strictObject({
  label: maxChars(z.string().trim().min(1, 'label must not be empty'), 200),
  admin: jsonBoolean().optional().meta({ description: 'Admin keys may call the admin endpoints. Default false.' }),
  rateLimitRpm: limitInput.optional().meta({ description: 'Requests allowed in any 60 seconds; null or absent is unlimited, 0 blocks the key' }),
  rateLimitRpd: limitInput.optional().meta({ description: 'Requests allowed in any 24 hours; null or absent is unlimited, 0 blocks the key' }),
});

export const createdApiKeySchema = z
  .object({
    id: z.string(),
    label: z.string(),
    key: z.string().meta({ description: 'The secret, kb_ followed by 40 base62 characters. Shown only here, once.' }),
    admin: z.boolean(),
    rateLimitRpm: limit,
    rateLimitRpd: limit,
    createdAt: z.string(),
  })
  .meta({ id: 'CreatedApiKey' });
