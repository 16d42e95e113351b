/**
 * Finds where JSON text first stops being valid JSON (RFC 8259), for error messages: V8's
 * JSON.parse messages on Node 20 quote a snippet but give no position. Linear and iterative;
 * only called after JSON.parse has failed.
 */
export function locateJsonError(text: string): number {
  let index = 0;
  const length = text.length;
  // Containers open: '{' or '['.
  const stack: string[] = [];
  const skipSpace = (): void => {
    while (index < length) {
      const code = text.charCodeAt(index);
      if (code !== 32 && code !== 9 && code !== 10 && code !== 13) return;
      index++;
    }
  };
  /** Reads one scalar at `index`; returns false when it is not valid. */
  const scalar = (): boolean => {
    const char = text[index];
    if (char === '"') {
      index++;
      while (index < length) {
        const code = text.charCodeAt(index);
        if (code === 34) {
          index++;
          return true;
        }
        if (code < 32) return false;
        if (code === 92) {
          const escape = text[index + 1];
          if (escape === 'u') {
            if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) {
              index++;
              return false;
            }
            index += 6;
            continue;
          }
          if (escape === undefined || !'"\\/bfnrt'.includes(escape)) {
            index++;
            return false;
          }
          index += 2;
          continue;
        }
        index++;
      }
      return false;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, index)) {
        index += literal.length;
        return true;
      }
    }
    const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    number.lastIndex = index;
    const match = number.exec(text);
    if (!match) return false;
    index += match[0].length;
    return true;
  };

  // States: expecting a value, a key (or '}' right after '{'), or ',' / closing bracket.
  let expect: 'value' | 'first-value' | 'key' | 'first-key' | 'after' = 'value';
  for (;;) {
    skipSpace();
    if (expect === 'after') {
      const open = stack[stack.length - 1];
      if (open === undefined) return index < length ? index : -1;
      const char = text[index];
      if (char === ',') {
        index++;
        expect = open === '{' ? 'key' : 'value';
      } else if ((char === '}' && open === '{') || (char === ']' && open === '[')) {
        index++;
        stack.pop();
      } else {
        return index;
      }
      continue;
    }
    if (index >= length) return index;
    const char = text[index];
    if (expect === 'key' || expect === 'first-key') {
      if (char === '}' && expect === 'first-key') {
        index++;
        stack.pop();
        expect = 'after';
        continue;
      }
      if (char !== '"' || !scalar()) return index;
      skipSpace();
      if (text[index] !== ':') return index;
      index++;
      expect = 'value';
      continue;
    }
    if (char === ']' && expect === 'first-value') {
      index++;
      stack.pop();
      expect = 'after';
      continue;
    }
    if (char === '{' || char === '[') {
      stack.push(char);
      index++;
      expect = char === '{' ? 'first-key' : 'first-value';
      continue;
    }
    if (!scalar()) return index;
    expect = 'after';
  }
}
