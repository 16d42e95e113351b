import { procedure } from '../../trpc.ts';
import { createApiKeyInput, createdApiKeySchema } from './schemas.ts';

export const createKey = procedure
  .meta({
    auth: 'admin',
    successStatus: 201,
    openapi: { method: 'POST', path: '/keys', tags: ['keys'], summary: 'Create an API key', protect: true, successDescription: 'Created: the secret is returned this once' },
  })
  .input(createApiKeyInput)
  .output(createdApiKeySchema)
  .mutation(async ({ ctx, input }) => {
    const created = await ctx.services.keys.create(input);
    ctx.log.info({ createdKeyId: created.id, admin: created.admin }, 'API key created');
    return created;
  });
