/**
 * PostgreSQL's COPY text format, one row a line: columns separated by tabs, NULL as `\N`,
 * backslash, backspace, form feed, newline, carriage return, tab and vertical tab escaped. A
 * backup's rows are in this form whichever store they came from, byte for byte what PostgreSQL's
 * own `COPY ... TO` prints, so the same row has the same checksum in either store and a
 * PostgreSQL restore hands the lines to `COPY ... FROM` untouched.
 */

const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};
// What COPY TO escapes (CopyAttributeOutText): other control characters go out as they are.
const NEEDS_ESCAPE = /[\\\b\f\n\r\t\v]/;
const ESCAPED = /[\\\b\f\n\r\t\v]/g;

/** One column's text as COPY prints it. */
export function encodeCopyValue(value: string | null): string {
  if (value === null) return '\\N';
  return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, (c) => ESCAPES[c]!) : value;
}

/** A row as a COPY text line, without its newline. */
export function encodeCopyRow(values: ReadonlyArray<string | null>): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += '\t';
    line += encodeCopyValue(values[i]!);
  }
  return line;
}

const UNESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** One column's text from its COPY form, as COPY FROM reads it (octal and hex escapes included). */
export function decodeCopyValue(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  let out = '';
  for (let i = 0; i < field.length; i++) {
    const c = field[i]!;
    if (c !== '\\' || i === field.length - 1) {
      out += c;
      continue;
    }
    const next = field[++i]!;
    if (next >= '0' && next <= '7') {
      let digits = next;
      while (digits.length < 3 && field[i + 1] !== undefined && field[i + 1]! >= '0' && field[i + 1]! <= '7') digits += field[++i];
      out += String.fromCharCode(Number.parseInt(digits, 8));
    } else if (next === 'x' && /[0-9a-fA-F]/.test(field[i + 1] ?? '')) {
      let digits = field[++i]!;
      if (/[0-9a-fA-F]/.test(field[i + 1] ?? '')) digits += field[++i];
      out += String.fromCharCode(Number.parseInt(digits, 16));
    } else {
      out += UNESCAPES[next] ?? next;
    }
  }
  return out;
}

/** A COPY text line's columns (the line without its newline). */
export function decodeCopyRow(line: string): Array<string | null> {
  return line.split('\t').map(decodeCopyValue);
}
