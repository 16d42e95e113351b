import { isAlias, isCollection, isScalar, visit, type Document } from 'yaml';

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

/**
 * Where the first key that repeats an earlier scalar key of its mapping starts, or null. Linear
 * in the number of keys (the YAML library's own `uniqueKeys` check compares every pair: 40,000
 * keys in one mapping took 14 s).
 */
export function duplicateKeyOffset(document: Document.Parsed): number | null {
  let offset: number | null = null;
  visit(document, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(pair.key.value)) {
          offset = pair.key.range?.[0] ?? 0;
          return visit.BREAK;
        }
        seen.add(pair.key.value);
      }
      return undefined;
    },
  });
  return offset;
}

/** The 1-based line and column of `offset` in `text`. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

