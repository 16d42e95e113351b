import { procedure } from '../../trpc.ts';
import { chatCaller } from './caller.ts';
import { chatRequest } from './prepare.ts';
import { chatAnswerSchema, chatInput } from './schemas.ts';

/**
 * The whole answer as JSON: POST /api/v1/chat with `stream: false` (through the chat route) and
 * `chat.ask` over /trpc (which always answers whole; the stream is the REST route's).
 */
export const ask = procedure
  .meta({ auth: 'apiKey', restRoute: { method: 'POST', path: '/chat' } })
  .input(chatInput)
  .output(chatAnswerSchema)
  .mutation(async ({ ctx, input, signal }) => {
    const prepared = await ctx.services.chat.prepare(chatRequest(input), chatCaller(ctx), ctx.log);
    return prepared.collect(signal);
  });
