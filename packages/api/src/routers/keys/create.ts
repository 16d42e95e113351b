import { procedure } from '../../trpc.ts';
import { createApiKeyInput, createdApiKeySchema } from './schemas.ts';

export const createKey = procedure
  .meta({
    auth: 'admin',
    successStatus: 201,
    openapi: { method: 'POST', path: '/keys', tags: ['keys'], summary: 'Create an API key', protect: true, successDescription: 'Created: the secret is returned this once' },
    example: {
      input: { label: 'docs-site', rateLimitRpm: 60 },
      output: {
        id: '3f1c2a9e-8b7d-4c5e-9a01-6d2f4b8e7c13',
        label: 'docs-site',
        key: 'kb_3J8vQm2LxR7tYp0WcN5sKd1HfG6aZb4EuT9oViMn',
        admin: false,
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
    ctx.log.info({ createdKeyId: created.id, admin: created.admin }, 'API key created');
    return created;
  });
