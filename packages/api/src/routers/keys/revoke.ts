import { z } from 'zod';
import { maxChars } from '../../schemas.ts';
import { procedure } from '../../trpc.ts';

export const revokeKey = procedure
  .meta({
    auth: 'admin',
    openapi: { method: 'DELETE', path: '/keys/{id}', tags: ['keys'], summary: 'Revoke an API key', protect: true },
    errors: { 404: 'No such key', 409: 'Already revoked' },
    example: { input: { id: '3f1c2a9e-8b7d-4c5e-9a01-6d2f4b8e7c13' }, output: { revoked: true, id: '3f1c2a9e-8b7d-4c5e-9a01-6d2f4b8e7c13' } },
  })
  .input(z.strictObject({ id: maxChars(z.string().min(1), 100) }))
  .output(z.object({ revoked: z.literal(true), id: z.string() }))
  .mutation(async ({ ctx, input }) => {
    const result = await ctx.services.keys.revoke(input.id);
    ctx.log.info({ revokedKeyId: result.id }, 'API key revoked');
    return result;
  });
