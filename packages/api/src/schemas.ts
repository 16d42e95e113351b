import { z } from 'zod';
import { NAMESPACES } from '@kb/core';
import { quoteValue } from './input-issues.ts';

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
export const namespaceSchema = z.enum(NAMESPACES, { error: (issue) => oneOf(NAMESPACES, issue.input) });

/** Namespaces a filter may list. */
const MAX_FILTER_NAMESPACES = 4;

/**
 * A namespace filter: one namespace, or a list of up to 4. A value outside the set is named as
 * such, whichever form it came in (a union's own message would only say the input is invalid).
 */
export const namespaceFilterSchema = () =>
  z.union([namespaceSchema, z.array(namespaceSchema).max(MAX_FILTER_NAMESPACES)], {
    error: (issue) => {
      const input = issue.input;
      if (!Array.isArray(input)) return typeof input === 'string' ? oneOf(NAMESPACES, input) : `must be one of ${NAMESPACES.join(', ')}, or a list of them (got ${quoteValue(input)})`;
      if (input.length > MAX_FILTER_NAMESPACES) return `must list at most ${MAX_FILTER_NAMESPACES} namespaces (got ${input.length})`;
      const outside = input.find((value) => !(NAMESPACES as readonly unknown[]).includes(value));
      return outside === undefined ? undefined : oneOf(NAMESPACES, outside);
    },
  });

/** The message of a value outside a closed set: the set, and an excerpt of what came. */
export function oneOf(values: readonly string[], input: unknown): string {
  return `must be one of ${values.join(', ')}${input === undefined ? '' : ` (got ${quoteValue(input)})`}`;
}

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

/**
 * `schema` held to at most `max` characters, counted as JSON Schema counts them (Unicode code
 * points: an emoji is one character, where String.length says two), and published as `maxLength`.
 * Checked after the schema's own checks (trimming included).
 */
export function maxChars<T extends z.ZodString>(
  schema: T,
  max: number,
  message = `Too big: expected string to have <=${max} characters`,
  documented: { pattern?: string } = {},
): T {
  return schema
    .superRefine((value, ctx) => {
      // A code point is one or two UTF-16 units: only lengths between max and 2 * max need counting.
      if (value.length <= max) return;
      if (value.length <= 2 * max && codePoints(value, max + 1) <= max) return;
      ctx.addIssue({ code: 'too_big', origin: 'string', maximum: max, inclusive: true, input: value, message });
    })
    .meta({ maxLength: max, ...documented }) as T;
}

/**
 * Text that must hold more than white space (it is trimmed, then must not be empty), at most
 * `max` characters. The document says so with `pattern: \S`, for its readers and for generators.
 */
export function nonBlankText(max: number, emptyMessage?: string, tooLongMessage?: string): z.ZodString {
  return maxChars(z.string().trim().min(1, emptyMessage), max, tooLongMessage, { pattern: '\\S' });
}

/** Code points in `text`, counting stops past `limit`. */
function codePoints(text: string, limit: number): number {
  let count = 0;
  for (let i = 0; i < text.length && count < limit; i++, count++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

/** A keyset page's position in an admin list (see @kb/core's lists/keyset.ts). */
export const cursorSchema = maxChars(z.string().min(1), 200).meta({
  description: "Start after this position: the previous page's nextCursor (instead of offset; a deep page costs what the first does)",
});

export const nextCursorSchema = z.string().nullable().meta({ description: 'Pass as cursor to read the next page; null on the last page' });
