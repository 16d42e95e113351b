import { z } from 'zod';
import { namespaceSchema } from '../../schemas.ts';
import { principalOf, procedure } from '../../trpc.ts';

/**
 * The REST route takes the raw spec as its body (application/json or application/yaml); the
 * HTTP host reads it and hands the procedure { spec, format, namespace } (namespace from the
 * query string). The OpenAPI document describes the raw body.
 */
export const ingestOpenApi = procedure
  .meta({
    auth: 'apiKey',
    openapi: {
      method: 'POST',
      path: '/ingest/openapi',
      tags: ['ingest'],
      summary: 'Ingest an OpenAPI (Swagger) spec, one document per operation',
      protect: true,
    },
    errors: {
      400: 'Invalid input or an invalid spec (the message says where)',
      413: 'The spec is larger than KB_MAX_SPEC_BYTES (25 MB by default)',
      415: 'The body is not application/json or application/yaml',
      503: 'The embedding service failed',
    },
    example: {
      input: { spec: 'openapi: 3.0.3\ninfo: { title: Pets, version: "1" }\npaths: {}\n', format: 'yaml', namespace: 'api_endpoints' },
      output: { upserted: 1, unchanged: 0, total: 1 },
    },
  })
  .input(
    z.strictObject({
      spec: z.string(),
      format: z.enum(['json', 'yaml']),
      namespace: namespaceSchema.optional(),
    }),
  )
  .output(
    z.object({
      upserted: z.number().int(),
      unchanged: z.number().int(),
      total: z.number().int().meta({ description: 'Operations with an operationId: upserted + unchanged' }),
    }),
  )
  .mutation(async ({ ctx, input, signal }) => {
    const result = await ctx.services.openApiIngestion.ingest(
      { spec: input.spec, format: input.format, namespace: input.namespace ?? 'api_endpoints' },
      signal,
      principalOf(ctx).namespaces,
    );
    ctx.log.info(result, 'OpenAPI spec ingested');
    return result;
  });
