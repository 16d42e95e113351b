import { z } from 'zod';
import { NAMESPACES } from '@kb/core';

/*
 * trpc-to-openapi turns on coercion for every number and boolean field of a procedure's input
 * (meant for query strings), and does so for JSON bodies too: "false" would become true and
 * "" would become 0. A field wrapped in a pipe is left alone, so JSON body fields use these.
 */

/** A JSON boolean: true or false, nothing else. */
export const jsonBoolean = () => z.boolean().pipe(z.boolean());

/** A JSON whole number within [min, max]. */
export const jsonInt = (min: number, max: number) => z.number().int().min(min).max(max).pipe(z.number());

/** One of the four namespaces. */
export const namespaceSchema = z.enum(NAMESPACES, {
  error: (issue) => `must be one of ${NAMESPACES.join(', ')}${issue.input === undefined ? '' : ` (got ${JSON.stringify(issue.input)})`}`,
});

/** Metadata nested deeper than this is refused (nothing filters that deep; hashing and storing it would not be bounded). */
export const MAX_METADATA_DEPTH = 32;

/** Levels of arrays and objects in `value` (0 for a scalar), counted without recursion. */
function valueDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push([child, level]);
    }
  }
  return deepest;
}

/** A document's metadata: a JSON object of at most {@link MAX_METADATA_DEPTH} levels. */
export const metadataSchema = z
  .record(z.string(), z.unknown())
  .refine((value) => valueDepth(value) <= MAX_METADATA_DEPTH, {
    message: `must not be nested more than ${MAX_METADATA_DEPTH} levels deep`,
  });
