import { z } from 'zod';
import { procedure } from '../../trpc.ts';
import { apiKeySchema } from './schemas.ts';

export const listKeys = procedure
  .meta({ auth: 'admin', openapi: { method: 'GET', path: '/keys', tags: ['keys'], summary: 'List API keys (never their secrets)', protect: true } })
  .input(z.void())
  .output(z.object({ keys: z.array(apiKeySchema) }))
  .query(async ({ ctx }) => ({ keys: await ctx.services.keys.list() }));
