import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appRouter } from './root.ts';

type Schema = z.core.$ZodType;

/**
 * Paths of the objects in `schema` that let unknown keys through (zod's default strips them
 * silently), and of a void input (which takes anything on REST). Records are maps with keys of the
 * caller's choosing (metadata) and stay open.
 */
function openObjects(schema: Schema, path: string): string[] {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  switch (def.type) {
    case 'object': {
      const { shape, catchall } = def as unknown as { shape: Record<string, Schema>; catchall?: Schema };
      const own = catchall?._zod.def.type === 'never' ? [] : [path || '(input)'];
      return [...own, ...Object.entries(shape).flatMap(([key, child]) => openObjects(child, path ? `${path}.${key}` : key))];
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'nonoptional':
      return openObjects(def.innerType as Schema, path);
    case 'pipe':
      return openObjects(def.in as Schema, path);
    case 'array':
      return openObjects(def.element as Schema, `${path}[]`);
    case 'union':
      return (def.options as Schema[]).flatMap((option) => openObjects(option, path));
    case 'intersection':
      return [...openObjects(def.left as Schema, path), ...openObjects(def.right as Schema, path)];
    case 'void':
    case 'undefined':
      // trpc-to-openapi never reads the query of a procedure without input: `?x=1` would be ignored.
      return [path || '(input)'];
    default:
      return [];
  }
}

describe('procedure inputs', () => {
  const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { inputs: Schema[] } }>);

  it('covers the router', () => {
    expect(procedures.length).toBeGreaterThan(5);
  });

  // An unknown field is a 400 naming it, on every route: a misspelt option ("topk") must not be
  // dropped and the request answered as if it had not been sent.
  it.each(procedures)('%s refuses unknown fields', (_name, procedure) => {
    expect(procedure._def.inputs.length).toBeGreaterThan(0);
    for (const input of procedure._def.inputs) {
      expect(openObjects(input, '')).toEqual([]);
    }
  });

  it('finds an object that lets unknown keys through, however nested', () => {
    const nested = z.strictObject({ a: z.array(z.union([z.string(), z.object({ b: z.number() })])).optional() });
    expect(openObjects(nested, '')).toEqual(['a[]']);
    expect(openObjects(z.object({}).optional(), '')).toEqual(['(input)']);
    expect(openObjects(z.void(), '')).toEqual(['(input)']);
    expect(openObjects(z.strictObject({ m: z.record(z.string(), z.unknown()) }), '')).toEqual([]);
  });
});
