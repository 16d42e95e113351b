import { isAlias, isCollection, visit, type Document } from 'yaml';

/**
 * Where the first mapping key that is a collection or an alias starts (a character offset in the
 * source), or null when every key is a plain scalar. Such keys (`? [a, b] : c`, `? { k: v } : c`,
 * `*anchor : c`) cannot be JSON keys: turning them into text costs time that grows steeply with
 * their nesting (400 nested `? ` keys took seconds), so callers refuse them before converting.
 */
export function complexKeyOffset(document: Document.Parsed): number | null {
  let offset: number | null = null;
  visit(document, {
    Pair(_, pair) {
      const key = pair.key;
      if (isCollection(key) || isAlias(key)) {
        offset = key.range?.[0] ?? 0;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return offset;
}

/** The 1-based line of `offset` in `text`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
