import type { PreparedChat } from '@kb/core';
import type { RequestContext } from '../../context.ts';
import { createCallerFactory, principalOf, procedure, router } from '../../trpc.ts';
import { chatRequest } from './prepare.ts';
import { chatInput } from './schemas.ts';

/**
 * The checks of a streamed chat, through the same middleware as every procedure (access,
 * rate limits, input), ending with the user's message stored: it returns the prepared answer,
 * not yet started, for the SSE route to run. Not part of the published router (its result is
 * not JSON); the route calls it with {@link createChatStreamCaller}.
 */
const start = procedure
  .meta({ auth: 'apiKey', publishable: 'answer' })
  .input(chatInput)
  .mutation(async ({ ctx, input }): Promise<{ prepared: PreparedChat; stream: boolean }> => ({
    prepared: await ctx.services.chat.prepare(chatRequest(input), principalOf(ctx), ctx.log),
    stream: input.stream ?? true,
  }));

export const chatStreamRouter = router({ chat: start });

/** The chat stream's checks, called with the request's context (see {@link chatStreamRouter}). */
export function createChatStreamCaller(ctx: RequestContext, options: { signal?: AbortSignal } = {}) {
  return createCallerFactory(chatStreamRouter)(ctx, options);
}
