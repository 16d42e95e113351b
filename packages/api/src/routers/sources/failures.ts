import { z } from 'zod';
import { procedure } from '../../trpc.ts';
import { failureSchema, failuresInput, nextCursorSchema, SOURCE_EXAMPLE } from './schemas.ts';

export const sourceFailures = procedure
  .meta({
    auth: 'admin',
    openapi: {
      method: 'GET',
      path: '/sources/{id}/failures',
      tags: ['sources'],
      summary: 'The pages the last sync could not sync, with the reasons, by URL',
      protect: true,
    },
    errors: { 404: 'No such source' },
    example: {
      input: { id: SOURCE_EXAMPLE.id, limit: 50 },
      output: {
        failures: [{ url: 'https://docs.example.com/reference/old', reason: 'the server answered 500 Internal Server Error', httpStatus: 500, at: '2026-12-01T03:01:02.000Z' }],
        take: 50,
        nextCursor: null,
      },
    },
  })
  .input(failuresInput)
  .output(z.object({ failures: z.array(failureSchema), take: z.number().int(), nextCursor: nextCursorSchema }))
  .query(({ ctx, input }) => ctx.services.sources.failures(input.id, input));
