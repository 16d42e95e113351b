import { z } from 'zod';
import { namespaceSchema } from '../../schemas.ts';
import { procedure } from '../../trpc.ts';

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
      errorResponses: { 400: 'Invalid spec', 413: 'Spec larger than 25 MB', 415: 'Not application/json or application/yaml' },
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
    );
    ctx.log.info(result, 'OpenAPI spec ingested');
    return result;
  });
