/**
 * Hugo shortcodes (`{{< name params >}}`, `{{% name params %}}`, paired with `{{< /name >}}`).
 * Hugo lexes them over the raw page before any Markdown is parsed, inside code fences too (which is
 * why pages that show a shortcode write it as `{{</* name *\/>}}`), so this tokenizer does the same
 * rather than walk a Markdown tree. Shortcode syntax is not Markdown, so no Markdown parser helps.
 *
 * The scan is linear: the close delimiter after each position is found once (a cached `indexOf`
 * that only moves forward) and pairing uses a stack with a per-name count.
 */

/** One `{{< >}}` / `{{% %}}` tag. */
export interface ShortcodeTag {
  type: 'tag';
  /** Offset of `{{` and of the character after `}}` in the source. */
  start: number;
  end: number;
  name: string;
  closing: boolean;
  selfClosing: boolean;
  /** Positional parameters, in order (quoted values unquoted). */
  positional: string[];
  named: Record<string, string>;
}

interface LiteralToken {
  type: 'literal';
  start: number;
  end: number;
  /** What the reader sees (`{{</* x *\/>}}` shows `{{< x >}}`). */
  text: string;
}

export type ShortcodeToken = ShortcodeTag | LiteralToken;

/** A tag longer than this is not taken for a shortcode (its text stays as it is). */
const MAX_TAG_CHARS = 4_000;

const CLOSE = { '<': '>}}', '%': '%}}' } as const;

const NAME = /^\/?\s*[\p{L}\p{N}_][\p{L}\p{N}_./-]*$/u;

/** Parameters: bare words, "double-quoted" (with backslash escapes), `raw`, and key=value. */
function parseParams(text: string): { positional: string[]; named: Record<string, string> } | undefined {
  const positional: string[] = [];
  const named: Record<string, string> = Object.create(null) as Record<string, string>;
  let i = 0;
  const readValue = (): string | undefined => {
    const quote = text[i];
    if (quote === '"' || quote === '`') {
      let value = '';
      for (i++; i < text.length && text[i] !== quote; i++) {
        if (quote === '"' && text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i];
      }
      if (i >= text.length) return undefined;
      i++;
      return value;
    }
    const start = i;
    while (i < text.length && !/\s/.test(text[i]!) && text[i] !== '=') i++;
    return text.slice(start, i);
  };
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) return { positional, named };
    const value = readValue();
    if (value === undefined) return undefined;
    if (text[i] === '=') {
      i++;
      const assigned = readValue();
      if (assigned === undefined) return undefined;
      named[value] = assigned;
    } else positional.push(value);
  }
}

/** Tokens of a source: shortcode tags and the literal shortcodes of `{{</* *\/>}}`. */
export function scanShortcodes(source: string): ShortcodeToken[] {
  const tokens: ShortcodeToken[] = [];
  const nextClose: Record<'<' | '%', number> = { '<': -1, '%': -1 };
  // Once a kind has no close delimiter left, no later tag of that kind is looked for.
  const closesLeft: Record<'<' | '%', boolean> = { '<': true, '%': true };
  let from = 0;
  for (;;) {
    const open = source.indexOf('{{', from);
    if (open < 0) break;
    from = open + 2;
    const kind = source[open + 2];
    if (kind !== '<' && kind !== '%') continue;
    if (!closesLeft[kind]) continue;
    if (nextClose[kind] < open + 3) {
      const found = source.indexOf(CLOSE[kind], open + 3);
      if (found < 0) {
        closesLeft[kind] = false;
        continue;
      }
      nextClose[kind] = found;
    }
    const close = nextClose[kind];
    if (close - open > MAX_TAG_CHARS) continue;
    const end = close + 3;
    let inner = source.slice(open + 3, close);
    const trimmed = inner.trim();
    if (trimmed.startsWith('/*') && trimmed.endsWith('*/') && trimmed.length >= 4) {
      tokens.push({ type: 'literal', start: open, end, text: `{{${kind}${trimmed.slice(2, -2)}${CLOSE[kind]}` });
      from = end;
      continue;
    }
    let selfClosing = false;
    if (inner.trimEnd().endsWith('/')) {
      selfClosing = true;
      inner = inner.trimEnd().slice(0, -1);
    }
    const head = /^\s*(\/?\s*[^\s/"`=][^\s"`=]*)/u.exec(inner);
    if (!head || !NAME.test(head[1]!)) continue;
    const params = parseParams(inner.slice(head[0].length));
    if (!params) continue;
    const rawName = head[1]!;
    const closing = rawName.startsWith('/');
    tokens.push({
      type: 'tag',
      start: open,
      end,
      name: closing ? rawName.slice(1).trim() : rawName,
      closing,
      selfClosing,
      ...params,
    });
    from = end;
  }
  return tokens;
}

export interface PairedShortcodes {
  tokens: ShortcodeToken[];
  /** For each paired opening tag (by index in `tokens`), the index of its closing tag. */
  closeOf: Map<number, number>;
  /** Indices of closing tags with no opening tag. */
  strayCloses: Set<number>;
}

/**
 * Pairs opening and closing tags: a closing tag closes the nearest open tag of its name; tags left
 * open inside it stand alone. Linear: each tag is pushed and popped at most once.
 */
export function pairShortcodes(tokens: ShortcodeToken[]): PairedShortcodes {
  const closeOf = new Map<number, number>();
  const strayCloses = new Set<number>();
  const stack: number[] = [];
  const openCount = new Map<string, number>();
  tokens.forEach((token, index) => {
    if (token.type !== 'tag' || token.selfClosing) return;
    if (!token.closing) {
      stack.push(index);
      openCount.set(token.name, (openCount.get(token.name) ?? 0) + 1);
      return;
    }
    if (!openCount.get(token.name)) {
      strayCloses.add(index);
      return;
    }
    for (;;) {
      const top = stack.pop()!;
      const tag = tokens[top] as ShortcodeTag;
      openCount.set(tag.name, openCount.get(tag.name)! - 1);
      if (tag.name === token.name) {
        closeOf.set(top, index);
        return;
      }
    }
  });
  return { tokens, closeOf, strayCloses };
}
