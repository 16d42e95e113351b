import { addressSubject, AppError } from '@kb/core';
import { z } from 'zod';
import { maxChars } from '../../schemas.ts';
import { procedure } from '../../trpc.ts';
import { setSessionCookie } from './session-cookie.ts';

export const login = procedure
  .meta({
    auth: 'public',
    openapi: {
      method: 'POST',
      path: '/auth/login',
      tags: ['auth'],
      summary: 'Start an admin session',
      description: 'Checks the password against KB_ADMIN_PASSWORD and sets an HttpOnly, SameSite=Strict session cookie that grants the admin endpoints.',
      protect: false,
    },
    errors: {
      401: 'Wrong password',
      429: 'Too many login attempts from this address (10 a minute)',
      503: 'Admin login is not configured (KB_ADMIN_PASSWORD is not set)',
    },
    example: { input: { password: 'correct horse battery staple' }, output: { ok: true, expiresAt: '2026-11-25T09:30:00.000Z' } },
  })
  .input(z.strictObject({ password: maxChars(z.string().min(1), 1000) }))
  .output(z.object({ ok: z.literal(true), expiresAt: z.string() }))
  .mutation(async ({ ctx, input }) => {
    // Password guessing is limited per client address.
    const decision = await ctx.services.rateLimiter.hit(`login:${addressSubject(ctx.ip)}`, [{ windowSeconds: 60, limit: 10 }]);
    if (!decision.allowed) {
      throw new AppError('TOO_MANY_REQUESTS', 'Too many login attempts; try again later', {
        headers: { 'Retry-After': String(decision.retryAfterSeconds ?? 60) },
      });
    }
    try {
      const session = await ctx.services.sessions.login(input.password);
      setSessionCookie(ctx, session.token, Math.floor(ctx.services.sessions.ttlMs / 1000));
      ctx.log.info('admin session started');
      return { ok: true as const, expiresAt: session.expiresAt.toISOString() };
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHORIZED') ctx.log.warn('failed admin login');
      throw error;
    }
  });
