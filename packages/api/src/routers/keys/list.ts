import { z } from 'zod';
import { procedure } from '../../trpc.ts';
import { apiKeySchema } from './schemas.ts';

export const listKeys = procedure
  .meta({ auth: 'admin', openapi: { method: 'GET', path: '/keys', tags: ['keys'], summary: 'List API keys (never their secrets)', protect: true, errorResponses: [400, 401, 403, 500] } })
  .input(z.strictObject({}).optional())
  .output(z.object({ keys: z.array(apiKeySchema) }))
  .query(async ({ ctx }) => ({ keys: await ctx.services.keys.list() }));
