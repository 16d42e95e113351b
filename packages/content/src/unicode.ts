/**
 * Text the store cannot hold: PostgreSQL's text and jsonb refuse the NUL character (U+0000), and
 * an unpaired UTF-16 surrogate (what a JSON escape like "\ud800" decodes to) is not Unicode text
 * and cannot be encoded as UTF-8.
 */
const ILL_FORMED = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const ILL_FORMED_ALL = new RegExp(ILL_FORMED.source, 'g');

/** Whether `text` holds a NUL character or an unpaired surrogate. */
export function isIllFormedText(text: string): boolean {
  return ILL_FORMED.test(text);
}

/** `text` with every NUL character and unpaired surrogate replaced by U+FFFD. */
export function wellFormedText(text: string): string {
  return ILL_FORMED.test(text) ? text.replace(ILL_FORMED_ALL, '\ufffd') : text;
}

/**
 * Where in `value` the first string or object key is ill-formed text ({@link isIllFormedText}):
 * its path ("" for `value` itself, `a.b[2]` below it), or undefined when there is none. Walks
 * without recursion, so any nesting is safe.
 */
export function illFormedTextPath(value: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (isIllFormedText(v)) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}[${i}]` });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        const at = path === '' ? key : `${path}.${key}`;
        if (isIllFormedText(key)) return at;
        stack.push({ value: item, path: at });
      }
    }
  }
  return undefined;
}
