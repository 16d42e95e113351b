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
