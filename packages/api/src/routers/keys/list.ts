import { z } from 'zod';
import { procedure } from '../../trpc.ts';
import { apiKeySchema } from './schemas.ts';

export const listKeys = procedure
  .meta({
    auth: 'admin',
    openapi: { method: 'GET', path: '/keys', tags: ['keys'], summary: 'List API keys (never a secret key\'s secret; publishable keys whole)', protect: true },
    example: {
      output: {
        keys: [
          {
            id: '3f1c2a9e-8b7d-4c5e-9a01-6d2f4b8e7c13',
            label: 'docs-site',
            kind: 'secret',
            keyPrefix: 'kb_3J8vQm',
            admin: false,
            namespaces: null,
            requestCount: 1284,
            rateLimitRpm: 60,
            rateLimitRpd: null,
            createdAt: '2026-11-24T09:30:00.000Z',
            lastUsedAt: '2026-11-24T11:02:17.000Z',
            revokedAt: null,
          },
        ],
      },
    },
  })
  .input(z.strictObject({}).optional())
  .output(z.object({ keys: z.array(apiKeySchema) }))
  .query(async ({ ctx }) => ({ keys: await ctx.services.keys.list() }));
