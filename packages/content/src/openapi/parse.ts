import { parseDocument } from 'yaml';
import { InvalidSpecError } from './errors.ts';
import { locateJsonError } from './json-error.ts';
import { complexKeyOffset, duplicateKeyOffset, lineColumnAt } from '../yaml-keys.ts';
import { estimateYamlDepth } from './yaml-depth.ts';

/** YAML aliases allowed (counted as yaml does: uses times the size of what they repeat). */
export const MAX_ALIAS_COUNT = 100;
/** Nesting depth of objects and arrays allowed in a spec. Real specs stay under 30. */
export const MAX_NESTING_DEPTH = 100;
/**
 * Values (objects, arrays and scalars, aliases counted each time they are used) allowed in a
 * parsed spec. The 4 MB Stripe spec has about 600,000.
 */
export const MAX_VALUES = 5_000_000;

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const offset = locateJsonError(text);
    if (offset < 0) throw new InvalidSpecError('JSON syntax error', { cause: error });
    const { line, column } = lineAndColumn(text, offset);
    const found = offset >= text.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(text.slice(offset, offset + 12))}`;
    throw new InvalidSpecError(`JSON syntax error at line ${line}, column ${column}: ${found}`, { cause: error });
  }
}

/**
 * Nesting (as estimated on the text) above which YAML is refused unparsed; the estimate can run a
 * little over the real depth, which is checked exactly after parsing.
 */
const MAX_ESTIMATED_YAML_DEPTH = MAX_NESTING_DEPTH + 20;

function parseYaml(text: string): unknown {
  const estimate = estimateYamlDepth(text);
  if (estimate.depth > MAX_ESTIMATED_YAML_DEPTH) {
    throw new InvalidSpecError(`the spec nests deeper than ${MAX_NESTING_DEPTH} levels (around line ${estimate.line})`);
  }
  let document;
  try {
    // prettyErrors off: each pretty error copies its source line, quadratic for thousands of
    // errors on one long line (80,000 bad escapes took minutes); the position is computed here.
    document = parseDocument(text, { prettyErrors: false, uniqueKeys: false });
  } catch (error) {
    if (error instanceof RangeError) throw new InvalidSpecError('YAML nesting is too deep to parse', { cause: error });
    throw error;
  }
  const [first] = document.errors;
  if (first) {
    const where = lineColumnAt(text, first.pos[0]);
    const at = ` at line ${where.line}, column ${where.column}`;
    const reason =
      first.code === 'MULTIPLE_DOCS'
        ? 'the text holds several YAML documents (separated by ---); upload one'
        : (first.message.split('\n')[0] ?? '');
    const more = document.errors.length > 1 ? ` (and ${document.errors.length - 1} more)` : '';
    throw new InvalidSpecError(`YAML syntax error${at}: ${reason}${more}`, { cause: first });
  }
  // Keys are checked here, in linear time, rather than by the parser's `uniqueKeys` (quadratic).
  const duplicate = duplicateKeyOffset(document);
  if (duplicate !== null) {
    const { line, column } = lineColumnAt(text, duplicate);
    throw new InvalidSpecError(`YAML syntax error at line ${line}, column ${column}: Map keys must be unique`);
  }
  const complexKey = complexKeyOffset(document);
  if (complexKey !== null) {
    throw new InvalidSpecError(`YAML at line ${lineColumnAt(text, complexKey).line} uses a collection or an alias as a mapping key; an OpenAPI document's keys are plain strings`);
  }
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      throw new InvalidSpecError(
        `YAML uses too many aliases (more than ${MAX_ALIAS_COUNT} expansions): refusing a possible alias bomb`,
        { cause: error },
      );
    }
    if (error instanceof RangeError) throw new InvalidSpecError('YAML nesting is too deep to parse', { cause: error });
    throw error;
  }
}

/** JSON-pointer-style location, for messages. */
function pointer(path: readonly (string | number)[]): string {
  return path.length === 0 ? '/' : path.map((key) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

const shorten = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

interface Pending {
  value: unknown;
  depth: number;
  parent: Pending | undefined;
  key: string | number;
}

function pathOf(entry: Pending): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Pending | undefined = entry; at?.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Checks the parsed value without recursion: nesting at most MAX_NESTING_DEPTH levels, at most
 * MAX_VALUES values (YAML aliases make a tree share nodes: each use counts).
 */
function checkShape(root: unknown): void {
  let values = 0;
  const stack: Pending[] = [{ value: root, depth: 0, parent: undefined, key: '' }];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    if (++values > MAX_VALUES) {
      throw new InvalidSpecError(`the spec is too large: more than ${MAX_VALUES.toLocaleString('en-US')} values`);
    }
    const { value, depth } = entry;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_NESTING_DEPTH) {
      throw new InvalidSpecError(
        `the spec nests deeper than ${MAX_NESTING_DEPTH} levels (at ${shorten(pointer(pathOf(entry)), 120)})`,
      );
    }
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) stack.push({ value: value[index], depth: depth + 1, parent: entry, key: index });
    } else {
      for (const key of Object.keys(value)) {
        stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: entry, key });
      }
    }
  }
}

/**
 * Parses an uploaded spec. JSON goes through JSON.parse; YAML through `yaml` (YAML 1.2 core
 * schema, so dates and `yes` stay strings) with at most MAX_ALIAS_COUNT alias expansions. The
 * result is then checked for depth and size. Every failure is an InvalidSpecError saying what
 * is wrong, with a line and column for syntax errors.
 */
export function parseSpec(text: string, format: 'json' | 'yaml'): unknown {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (source.trim() === '') throw new InvalidSpecError('the spec is empty');
  const value = format === 'json' ? parseJson(source) : parseYaml(source);
  checkShape(value);
  return value;
}
