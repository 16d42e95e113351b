import { parseDocument } from 'yaml';
import { wellFormedText } from '../unicode.ts';
import { complexKeyOffset } from '../yaml-keys.ts';

/** A front matter block at the very start of the document. */
export interface FrontMatter {
  kind: 'yaml' | 'toml';
  /** Offset of the first character after the closing fence line (after its line ending). */
  end: number;
  /** The text between the fence lines (without the line ending before the closing fence). */
  value: string;
}

/** Keys that would change an object's prototype rather than hold a value. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Front matter larger than this is skipped (not parsed) rather than risking a slow parse. */
const MAX_FRONT_MATTER_CHARS = 256 * 1024;

/**
 * Finds a YAML (`---`) or TOML (`+++`) front matter block with the same rules as
 * micromark-extension-frontmatter: the fence is the first line, may be followed by spaces or
 * tabs, and the block must be closed by a fence line of its own. `source` uses `\n` line endings.
 */
export function findFrontMatter(source: string): FrontMatter | null {
  const fence = source.startsWith('---') ? '---' : source.startsWith('+++') ? '+++' : null;
  if (fence === null) return null;
  const firstEol = source.indexOf('\n');
  if (firstEol < 0 || !isBlank(source, 3, firstEol)) return null;
  let lineStart = firstEol + 1;
  while (lineStart <= source.length) {
    let eol = source.indexOf('\n', lineStart);
    if (eol < 0) eol = source.length;
    if (source.startsWith(fence, lineStart) && isBlank(source, lineStart + 3, eol)) {
      const valueEnd = Math.max(firstEol + 1, lineStart - 1);
      return {
        kind: fence === '---' ? 'yaml' : 'toml',
        end: eol < source.length ? eol + 1 : eol,
        value: source.slice(firstEol + 1, valueEnd),
      };
    }
    if (eol >= source.length) break;
    lineStart = eol + 1;
  }
  return null;
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/**
 * Front matter as a plain JSON object. Anything that is not a mapping, any parse error, and YAML
 * the store cannot hold as JSON (a node that contains itself through an alias) gives `{}`. Text
 * the store cannot hold (NUL, unpaired surrogates: YAML escapes such as "\0" and "\ud800" make
 * them) becomes U+FFFD, in keys too.
 */
export function parseFrontMatter(frontMatter: FrontMatter | null): Record<string, unknown> {
  if (frontMatter === null || frontMatter.value.length > MAX_FRONT_MATTER_CHARS) return {};
  try {
    const value: unknown = frontMatter.kind === 'yaml' ? parseYamlFrontMatter(frontMatter.value) : parseSimpleToml(frontMatter.value);
    return isPlainRecord(value) ? (jsonValue(value, new Set()) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * YAML front matter as JavaScript values (merge keys `<<` applied), or undefined for YAML with
 * errors or with keys that are collections or aliases (which JSON cannot hold as keys).
 */
function parseYamlFrontMatter(text: string): unknown {
  // Without prettyErrors: "pretty" errors copy their source line each, so thousands of errors on
  // one long line cost time quadratic in its length.
  const document = parseDocument(text, { uniqueKeys: false, merge: true, logLevel: 'silent', prettyErrors: false });
  if (document.errors.length > 0 || complexKeyOffset(document) !== null) return undefined;
  return document.toJS({ maxAliasCount: 100 });
}

/** Front matter nested deeper than this is not metadata anyone filters on: it gives `{}`. */
const MAX_FRONT_MATTER_DEPTH = 64;

/**
 * `value` as JSON data: well-formed strings, finite numbers (others become null, as in JSON), no
 * prototype-changing keys. Throws on a cycle or on nesting beyond {@link MAX_FRONT_MATTER_DEPTH}.
 */
function jsonValue(value: unknown, ancestors: Set<object>): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || value === null || value === undefined) return value ?? null;
  if (typeof value !== 'object') return String(value);
  if (ancestors.has(value)) throw new Error('front matter refers to itself');
  if (ancestors.size >= MAX_FRONT_MATTER_DEPTH) throw new Error('front matter nested too deeply');
  ancestors.add(value);
  let result: unknown;
  if (Array.isArray(value)) {
    result = value.map((item) => jsonValue(item, ancestors));
  } else if (value instanceof Set) {
    result = [...value].map((item) => jsonValue(item, ancestors));
  } else if (value instanceof Date) {
    result = Number.isNaN(value.getTime()) ? null : value.toISOString();
  } else if (value instanceof Uint8Array) {
    result = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  } else {
    const record: Record<string, unknown> = {};
    const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
    for (const [key, item] of entries) {
      const name = wellFormedText(String(key));
      if (!FORBIDDEN_KEYS.has(name)) record[name] = jsonValue(item, ancestors);
    }
    result = record;
  }
  ancestors.delete(value);
  return result;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map);
}

/**
 * A small TOML subset, enough for typical front matter: `key = value` lines with basic or literal
 * strings, numbers, booleans, dates (kept as strings) and one-line arrays of those; `[table]`
 * headers and dotted keys build nested objects. Lines it does not understand (multi-line strings,
 * inline tables, `[[arrays of tables]]`) are skipped, never fatal.
 */
export function parseSimpleToml(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let table: Record<string, unknown> | null = root;
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] ?? '').trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[[')) {
      table = null; // arrays of tables are not supported: skip their keys
      continue;
    }
    if (line.startsWith('[')) {
      const close = line.indexOf(']');
      const path = close > 0 ? parseKeyPath(line.slice(1, close)) : null;
      table = path ? descend(root, path) : null;
      continue;
    }
    if (table === null) continue;
    const eq = findUnquoted(line, '=');
    if (eq <= 0) continue;
    const path = parseKeyPath(line.slice(0, eq));
    const rawValue = line.slice(eq + 1).trim();
    if (!path) continue;
    if (rawValue.startsWith('"""') || rawValue.startsWith("'''")) {
      // Multi-line string: skip to its closing delimiter.
      const delimiter = rawValue.slice(0, 3);
      if (rawValue.indexOf(delimiter, 3) < 0) {
        while (index + 1 < lines.length && !(lines[index + 1] ?? '').includes(delimiter)) index++;
        index++;
      }
      continue;
    }
    const value = parseTomlValue(rawValue);
    if (value === undefined) continue;
    const target = descend(table, path.slice(0, -1));
    const key = path[path.length - 1];
    if (target && key !== undefined) target[key] = value;
  }
  return root;
}

function descend(from: Record<string, unknown>, path: readonly string[]): Record<string, unknown> | null {
  let current = from;
  for (const key of path) {
    const existing = current[key];
    if (existing === undefined) {
      const created: Record<string, unknown> = {};
      current[key] = created;
      current = created;
    } else if (isPlainRecord(existing)) {
      current = existing;
    } else {
      return null;
    }
  }
  return current;
}

function parseKeyPath(text: string): string[] | null {
  const keys: string[] = [];
  let rest = text.trim();
  while (rest.length > 0) {
    let key: string;
    if (rest.startsWith('"') || rest.startsWith("'")) {
      const parsed = parseTomlString(rest);
      if (!parsed) return null;
      key = parsed.value;
      rest = rest.slice(parsed.length).trim();
    } else {
      const match = /^[A-Za-z0-9_-]+/.exec(rest);
      if (!match) return null;
      key = match[0];
      rest = rest.slice(key.length).trim();
    }
    if (FORBIDDEN_KEYS.has(key)) return null;
    keys.push(key);
    if (rest.length === 0) break;
    if (!rest.startsWith('.')) return null;
    rest = rest.slice(1).trim();
  }
  return keys.length > 0 ? keys : null;
}

function findUnquoted(text: string, char: string): number {
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === char) {
      return i;
    }
  }
  return -1;
}

function parseTomlString(text: string): { value: string; length: number } | null {
  const quote = text[0];
  if (quote === "'") {
    const close = text.indexOf("'", 1);
    return close < 0 ? null : { value: text.slice(1, close), length: close + 1 };
  }
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '"') return { value, length: i + 1 };
    if (c !== '\\') {
      value += c;
      continue;
    }
    const escape = text[++i];
    switch (escape) {
      case 'n':
        value += '\n';
        break;
      case 't':
        value += '\t';
        break;
      case 'r':
        value += '\r';
        break;
      case 'u':
      case 'U': {
        const width = escape === 'u' ? 4 : 8;
        const code = Number.parseInt(text.slice(i + 1, i + 1 + width), 16);
        if (!Number.isFinite(code) || code > 0x10ffff) return null;
        value += String.fromCodePoint(code);
        i += width;
        break;
      }
      default:
        if (escape === undefined) return null;
        value += escape;
    }
  }
  return null;
}

function stripComment(text: string): string {
  const hash = findUnquoted(text, '#');
  return (hash >= 0 ? text.slice(0, hash) : text).trim();
}

function parseTomlValue(raw: string): unknown {
  const text = raw.startsWith('"') || raw.startsWith("'") ? raw : stripComment(raw);
  if (text.startsWith('"') || text.startsWith("'")) {
    const parsed = parseTomlString(text);
    if (!parsed) return undefined;
    const rest = text.slice(parsed.length).trim();
    return rest === '' || rest.startsWith('#') ? parsed.value : undefined;
  }
  if (text.startsWith('[')) {
    const close = text.lastIndexOf(']');
    if (close < 0) return undefined;
    const items: unknown[] = [];
    let rest = text.slice(1, close).trim();
    while (rest.length > 0) {
      const comma = findUnquoted(rest, ',');
      const item = (comma < 0 ? rest : rest.slice(0, comma)).trim();
      rest = comma < 0 ? '' : rest.slice(comma + 1).trim();
      if (item === '') continue;
      if (item.startsWith('[') || item.startsWith('{')) return undefined;
      const value = parseTomlValue(item);
      if (value === undefined) return undefined;
      items.push(value);
    }
    return items;
  }
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^[+-]?(\d[\d_]*)(\.\d[\d_]*)?([eE][+-]?\d+)?$/.test(text)) return Number(text.replaceAll('_', ''));
  if (/^\d{4}-\d{2}-\d{2}([Tt ][\d:.]+([Zz]|[+-]\d{2}:\d{2})?)?$/.test(text)) return text;
  if (/^\d{2}:\d{2}:\d{2}/.test(text)) return text;
  return undefined;
}
