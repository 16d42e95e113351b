import { SESSION_COOKIE } from '@kb/core';
import { z } from 'zod';
import { procedure } from '../../trpc.ts';
import { clearSessionCookie } from './session-cookie.ts';

export const logout = procedure
  .meta({
    auth: 'public',
    openapi: { method: 'POST', path: '/auth/logout', tags: ['auth'], summary: 'End the admin session', protect: false },
    example: { input: {}, output: { ok: true } },
  })
  .input(z.strictObject({}).optional())
  .output(z.object({ ok: z.literal(true) }))
  .mutation(async ({ ctx }) => {
    const token = ctx.cookie(SESSION_COOKIE);
    if (token) await ctx.services.sessions.logout(token);
    clearSessionCookie(ctx);
    return { ok: true as const };
  });
