import { procedure } from '../../trpc.ts';
import { apiKeySchema, updateApiKeyInput } from './schemas.ts';

export const updateKey = procedure
  .meta({
    auth: 'admin',
    openapi: {
      method: 'PATCH',
      path: '/keys/{id}',
      tags: ['keys'],
      summary: "Change a key's label, limits, namespaces, or a publishable key's origins and budgets",
      description: 'Fields left out stay as they are. A revoked key cannot be changed (409).',
      protect: true,
    },
    errors: { 404: 'No such key', 409: 'The key is revoked' },
    example: {
      input: { id: '5d2e8f1a-3c4b-4e6d-9f70-8a1b2c3d4e5f', allowedOrigins: ['https://docs.example.com', 'https://*.example.com'] },
      output: {
        id: '5d2e8f1a-3c4b-4e6d-9f70-8a1b2c3d4e5f',
        label: 'docs site assistant',
        kind: 'publishable',
        keyPrefix: 'kb_pub_7Hq2Lm',
        admin: false,
        namespaces: ['user_docs'],
        requestCount: 5310,
        rateLimitRpm: null,
        rateLimitRpd: null,
        createdAt: '2026-11-24T09:30:00.000Z',
        lastUsedAt: '2026-11-27T08:12:44.000Z',
        revokedAt: null,
        key: 'kb_pub_7Hq2LmX9vB4nR8tW1yK6pD3sF0gJ5cA2eZuQ',
        allowedOrigins: ['https://docs.example.com', 'https://*.example.com'],
        visitorRateLimitRpm: 10,
        visitorRateLimitRpd: 100,
        dailyAnswerLimit: 1000,
      },
    },
  })
  .input(updateApiKeyInput)
  .output(apiKeySchema)
  .mutation(async ({ ctx, input }) => {
    const { id, ...changes } = input;
    const updated = await ctx.services.keys.update(id, changes);
    ctx.log.info({ updatedKeyId: id, fields: Object.keys(changes) }, 'API key changed');
    return updated;
  });
