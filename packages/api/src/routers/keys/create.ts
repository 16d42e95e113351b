import { procedure } from '../../trpc.ts';
import { createApiKeyInput, createdApiKeySchema } from './schemas.ts';

export const createKey = procedure
  .meta({
    auth: 'admin',
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/keys',
      tags: ['keys'],
      summary: 'Create an API key: secret (for servers) or publishable (for web pages)',
      protect: true,
      successDescription: 'Created: a secret key is returned this once',
    },
    example: {
      input: { label: 'docs-site', rateLimitRpm: 60, namespaces: ['user_docs', 'tech_docs'] },
      output: {
        id: '3f1c2a9e-8b7d-4c5e-9a01-6d2f4b8e7c13',
        label: 'docs-site',
        kind: 'secret',
        key: 'kb_3J8vQm2LxR7tYp0WcN5sKd1HfG6aZb4EuT9oViMn',
        admin: false,
        namespaces: ['user_docs', 'tech_docs'],
        rateLimitRpm: 60,
        rateLimitRpd: null,
        createdAt: '2026-11-24T09:30:00.000Z',
      },
    },
  })
  .input(createApiKeyInput)
  .output(createdApiKeySchema)
  .mutation(async ({ ctx, input }) => {
    const created = await ctx.services.keys.create(input);
    ctx.log.info({ createdKeyId: created.id, kind: created.kind, admin: created.admin }, 'API key created');
    return created;
  });
