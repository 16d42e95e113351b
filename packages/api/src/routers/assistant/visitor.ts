import { AppError } from '@kb/core';
import { z } from 'zod';
import { maxChars } from '../../schemas.ts';
import { procedure } from '../../trpc.ts';

export const admitVisitor = procedure
  .meta({
    auth: 'apiKey',
    publishable: 'visitor',
    openapi: {
      method: 'POST',
      path: '/assistant/visitor',
      tags: ['assistant'],
      summary: 'Pass the bot check once: a challenge token (Turnstile or hCaptcha) for a visitor token',
      description:
        'With a bot check configured (KB_BOT_CHECK_PROVIDER), every request of a publishable key carries the visitor token in X-Kb-Visitor. ' +
        'The challenge token is verified once with the provider; a provider that cannot be reached is a 503 (never a pass).',
      protect: true,
    },
    errors: {
      403: 'The bot check failed (or was used before), or the page is not one the key allows',
      404: 'This server has no bot check',
      503: 'The bot check provider could not be reached',
    },
    example: {
      input: { token: '0.zQx…' },
      output: { visitorToken: 'eyJrIjoi….Qm9v…', expiresAt: '2026-11-24T12:00:00.000Z' },
    },
  })
  .input(z.strictObject({ token: maxChars(z.string().min(1), 4096).meta({ description: "The provider's challenge token from the page" }) }))
  .output(z.object({ visitorToken: z.string(), expiresAt: z.string() }).meta({ id: 'VisitorToken' }))
  .mutation(async ({ ctx, input }) => {
    if (ctx.caller.kind !== 'key' || ctx.caller.key.kind !== 'publishable') {
      throw new AppError('BAD_REQUEST', 'A visitor token is for publishable keys');
    }
    return ctx.services.assistant.admitVisitor(ctx.caller.key, input.token, ctx.ip, ctx.selfOrigin);
  });
