import { principalOf, procedure } from '../../trpc.ts';
import { chatRequest } from './prepare.ts';
import { chatAnswerSchema, chatInput } from './schemas.ts';

/**
 * The whole answer as JSON: POST /api/v1/chat with `stream: false` (through the chat route) and
 * `chat.ask` over /trpc (which always answers whole; the stream is the REST route's).
 */
export const ask = procedure
  .meta({
    auth: 'apiKey',
    publishable: 'answer',
    restRoute: { method: 'POST', path: '/chat' },
    errors: {
      404: 'Unknown conversationId (or one another key started)',
      503: 'The language model or the embedding service is unavailable (stream: false; a stream reports it in an error event)',
    },
    example: {
      input: { message: 'How do I rotate an API key?', source: 'user_docs', stream: false },
      output: {
        conversationId: '2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376',
        messageId: '8d4b7e21-6c3a-4f95-b0d8-2e1f9a7c5b63',
        answer: 'Create the new key, deploy it, then revoke the old one [1].',
        sources: [{ title: 'Rotating API keys', documentId: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48', slug: 'guides/rotating-keys', namespace: 'user_docs' }],
        language: 'en',
      },
    },
  })
  .input(chatInput)
  .output(chatAnswerSchema)
  .mutation(async ({ ctx, input, signal }) => {
    const prepared = await ctx.services.chat.prepare(chatRequest(input), principalOf(ctx), ctx.log);
    return prepared.collect(signal);
  });
