import { procedure } from '../../trpc.ts';
import { SOURCE_EXAMPLE, sourceSchema, updateSourceInput } from './schemas.ts';

export const updateSource = procedure
  .meta({
    auth: 'admin',
    openapi: {
      method: 'PATCH',
      path: '/sources/{id}',
      tags: ['sources'],
      summary: "Change a source's name, scope (settings) or schedule",
      description: 'Fields left out stay as they are; `settings` replaces the stored settings whole. The change applies from the next sync.',
      protect: true,
    },
    errors: { 404: 'No such source' },
    example: { input: { id: SOURCE_EXAMPLE.id, scheduleMinutes: 360 }, output: { ...SOURCE_EXAMPLE, scheduleMinutes: 360 } },
  })
  .input(updateSourceInput)
  .output(sourceSchema)
  .mutation(({ ctx, input }) => {
    const { id, ...changes } = input;
    return ctx.services.sources.update(id, changes);
  });
