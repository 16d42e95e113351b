import { z } from 'zod';
import { pageOrigin } from '../../context.ts';
import { maxChars } from '../../schemas.ts';
import { procedure } from '../../trpc.ts';

const configSchema = z
  .object({
    namespaces: z.array(z.string()).meta({ description: 'The namespaces the key may read' }),
    botCheck: z
      .object({ provider: z.enum(['turnstile', 'hcaptcha']), siteKey: z.string() })
      .nullable()
      .meta({ description: 'The challenge a visitor passes before asking (POST /assistant/visitor); null: none' }),
    limits: z.object({ visitorRateLimitRpm: z.number().int().nullable(), visitorRateLimitRpd: z.number().int().nullable() }),
    answerer: z
      .enum(['model', 'extractive'])
      .meta({ description: 'Who writes the answers: model (a language model, from the passages) or extractive (the built-in answerer, quoting the passages)' }),
  })
  .meta({ id: 'AssistantConfig' });

export const assistantConfig = procedure
  .meta({
    auth: 'public',
    anyOrigin: true,
    openapi: {
      method: 'GET',
      path: '/assistant/config',
      tags: ['assistant'],
      summary: "What a page's publishable key may do from that page (the assistant asks this first)",
      description:
        'A simple GET without credentials: the publishable key goes in `key`. The page\'s Origin must be one the key allows (403 otherwise); ' +
        'the answer is readable by pages of any origin, so that a page the key does not allow can say so.',
      protect: false,
    },
    errors: {
      400: 'key is not a publishable key',
      401: 'Unknown or revoked publishable key',
      403: "The page's origin is not one the key allows, or the request has no Origin",
    },
    example: {
      input: { key: 'kb_pub_7Hq2LmX9vB4nR8tW1yK6pD3sF0gJ5cA2eZuQ' },
      output: { namespaces: ['user_docs'], botCheck: null, limits: { visitorRateLimitRpm: 10, visitorRateLimitRpd: 100 }, answerer: 'model' },
    },
  })
  .input(z.strictObject({ key: maxChars(z.string().min(1), 200).meta({ description: 'The publishable key (kb_pub_…)' }) }))
  .output(configSchema)
  .query(async ({ ctx, input }) => ({
    ...(await ctx.services.assistant.config(input.key, pageOrigin(ctx), ctx.selfOrigin)),
    // So that the assistant's disclaimer tells the truth about who wrote the answer.
    answerer: ctx.services.chat.answerer === 'claude' ? ('model' as const) : ('extractive' as const),
  }));
