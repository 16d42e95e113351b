import { isObject, type JsonObject, refName, type RefResolver } from './refs.ts';
import { code, inlineDescription, literal } from './text.ts';

/** Levels of nested fields written out; deeper ones are shown as "…". */
export const MAX_SCHEMA_DEPTH = 4;
/** Enum values listed before "… (N more)". */
export const MAX_ENUM_VALUES = 20;
/** Variants of a oneOf / anyOf listed. */
const MAX_VARIANTS = 20;
/** allOf parts followed inside one another. */
const MAX_ALL_OF_DEPTH = 8;

/**
 * State shared by every schema written into one operation document: the line budget (so one huge
 * schema cannot produce megabytes) and the named schemas already written out (later uses point
 * back to them instead of repeating their fields).
 */
export interface SchemaWriter {
  resolver: RefResolver;
  /** Lines of schema fields still allowed in this document. */
  budget: number;
  expanded: Set<string>;
  cache: SchemaCache;
}

/**
 * Work shared by all the documents of one spec: resolved schemas and their merged fields. Big
 * schemas are referenced from hundreds of operations; each is looked at once.
 */
export interface SchemaCache {
  resolved: WeakMap<object, Resolved>;
  fields: WeakMap<JsonObject, Fields>;
}

export function createSchemaCache(): SchemaCache {
  return { resolved: new WeakMap(), fields: new WeakMap() };
}

export function createSchemaWriter(resolver: RefResolver, budget: number, cache: SchemaCache = createSchemaCache()): SchemaWriter {
  return { resolver, budget, expanded: new Set(), cache };
}

/** A schema with its `$ref`s followed. */
export interface Resolved {
  schema: JsonObject;
  /** Name of the schema when it came from a named definition (`#/components/schemas/Pet`). */
  name: string | undefined;
  /** Why there is no schema: an external, missing or circular reference. */
  problem: string | undefined;
}

const NAMED_SCHEMA = /^#\/(?:components\/schemas|definitions|\$defs)\/[^/]+$/;

function resolveOnce(writer: SchemaWriter, node: unknown): Resolved {
  const result = writer.resolver.deref(node);
  switch (result.kind) {
    case 'external':
      return { schema: {}, name: undefined, problem: `external reference: ${result.ref}` };
    case 'missing':
      return { schema: {}, name: undefined, problem: `unresolved reference: ${result.ref}` };
    case 'cycle':
      return { schema: {}, name: undefined, problem: `circular reference: ${result.ref}` };
    case 'value': {
      const name = result.ref !== undefined && NAMED_SCHEMA.test(result.ref) ? refName(result.ref) : undefined;
      return { schema: isObject(result.value) ? result.value : {}, name, problem: undefined };
    }
  }
}

const isNullSchema = (node: unknown): boolean =>
  isObject(node) && (node.type === 'null' || (Array.isArray(node.type) && node.type.length === 1 && node.type[0] === 'null'));

/**
 * Follows `$ref`s, then unwraps the common "one real variant" wrappers: `anyOf: [X]` (Stripe's
 * nullable references) and `anyOf: [X, {type: null}]` (OpenAPI 3.1 nullables) read as X, marked
 * nullable, with the wrapper's own keys (description...) laid over it.
 */
function resolve(writer: SchemaWriter, node: unknown): Resolved {
  if (typeof node !== 'object' || node === null) return resolveUnwrapped(writer, node);
  let resolved = writer.cache.resolved.get(node);
  if (!resolved) {
    resolved = resolveUnwrapped(writer, node);
    writer.cache.resolved.set(node, resolved);
  }
  return resolved;
}

function resolveUnwrapped(writer: SchemaWriter, node: unknown): Resolved {
  let resolved = resolveOnce(writer, node);
  for (let level = 0; level < 4 && !resolved.problem; level++) {
    const { schema } = resolved;
    const key = Array.isArray(schema.anyOf) ? 'anyOf' : Array.isArray(schema.oneOf) ? 'oneOf' : undefined;
    if (!key || schema.type !== undefined || schema.properties !== undefined || schema.allOf !== undefined) break;
    const variants = schema[key] as unknown[];
    const real = variants.filter((variant) => !isNullSchema(variant));
    if (real.length !== 1) break;
    const inner = resolveOnce(writer, real[0]);
    if (inner.problem) break;
    const outer: JsonObject = { ...schema };
    delete outer[key];
    const merged: JsonObject = { ...inner.schema, ...outer };
    if (real.length < variants.length) merged.nullable = true;
    resolved = { schema: merged, name: inner.name ?? resolved.name, problem: undefined };
  }
  return resolved;
}

function typesOf(schema: JsonObject): string[] {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((entry): entry is string => typeof entry === 'string');
  return [];
}

/** oneOf / anyOf with two or more variants (a single one is a wrapper, like allOf of one). */
function variantsOf(schema: JsonObject): { kind: 'one of' | 'any of'; nodes: unknown[] } | undefined {
  if (Array.isArray(schema.oneOf) && schema.oneOf.length > 1) return { kind: 'one of', nodes: schema.oneOf };
  if (Array.isArray(schema.anyOf) && schema.anyOf.length > 1) return { kind: 'any of', nodes: schema.anyOf };
  return undefined;
}

/** allOf members, plus the single member of a one-variant oneOf / anyOf. */
function mergedParts(schema: JsonObject): unknown[] {
  const parts = Array.isArray(schema.allOf) ? [...schema.allOf] : [];
  for (const key of ['oneOf', 'anyOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.length === 1) parts.push(list[0]);
  }
  return parts;
}

/** Short type label: `string`, `array of object (`Pet`)`, `one of `Card`, `Bank``... */
function label(writer: SchemaWriter, node: unknown, depth = 0): string {
  const resolved = resolve(writer, node);
  if (resolved.problem) return `(${resolved.problem})`;
  const base = structuralLabel(writer, resolved.schema, depth);
  // Names help for objects (their fields are listed once per document); a named string or
  // array reads better as its type alone.
  return resolved.name && isObjectLike(resolved.schema) ? `${base} (${code(resolved.name)})` : base;
}

function isObjectLike(schema: JsonObject): boolean {
  const types = typesOf(schema);
  if (types.length > 0) return types.includes('object');
  return (
    schema.properties !== undefined ||
    schema.additionalProperties !== undefined ||
    mergedParts(schema).length > 0 ||
    variantsOf(schema) !== undefined
  );
}

function structuralLabel(writer: SchemaWriter, schema: JsonObject, depth: number): string {
  const types = typesOf(schema);
  if (types.includes('array') || (types.length === 0 && schema.items !== undefined)) {
    const others = types.filter((type) => type !== 'array');
    const items = schema.items === undefined ? 'array' : depth < 3 ? `array of ${label(writer, schema.items, depth + 1)}` : 'array';
    return [items, ...others].join(' | ');
  }
  const variants = variantsOf(schema);
  if (variants && types.length === 0) {
    const shown = variants.nodes.slice(0, MAX_VARIANTS).map((variant) => {
      const resolved = resolve(writer, variant);
      if (resolved.problem) return `(${resolved.problem})`;
      return resolved.name ? code(resolved.name) : depth < 3 ? structuralLabel(writer, resolved.schema, depth + 1) : 'object';
    });
    const more = variants.nodes.length > MAX_VARIANTS ? `, … (${variants.nodes.length - MAX_VARIANTS} more)` : '';
    return `${variants.kind} ${shown.join(', ')}${more}`;
  }
  const parts = mergedParts(schema);
  if (parts.length === 1 && types.length === 0 && schema.properties === undefined) {
    return depth < 3 ? label(writer, parts[0], depth + 1) : 'object';
  }
  if (types.length > 0) return types.join(' | ');
  if (schema.properties !== undefined || schema.additionalProperties !== undefined || parts.length > 0) return 'object';
  if (schema.enum !== undefined) return 'enum';
  if (schema.const !== undefined) return 'constant';
  return 'any';
}

/** The fields of an object schema, with allOf parts merged in. */
export interface Fields {
  properties: Map<string, unknown>;
  required: Set<string>;
  /** additionalProperties: a schema, true for any, undefined for none said. */
  additional: unknown;
  variants: { kind: 'one of' | 'any of'; nodes: unknown[] } | undefined;
  /** allOf parts that could not be followed. */
  problems: string[];
}

function collectFields(writer: SchemaWriter, schema: JsonObject): Fields {
  let fields = writer.cache.fields.get(schema);
  if (!fields) {
    fields = gatherFields(writer, schema);
    writer.cache.fields.set(schema, fields);
  }
  return fields;
}

function gatherFields(writer: SchemaWriter, schema: JsonObject): Fields {
  const fields: Fields = { properties: new Map(), required: new Set(), additional: undefined, variants: undefined, problems: [] };
  const seen = new Set<JsonObject>();
  const stack: [JsonObject, number][] = [[schema, 0]];
  // Depth-first, in document order: allOf parts are merged where they appear.
  const order: JsonObject[] = [];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [part, level] = entry;
    if (seen.has(part)) continue;
    seen.add(part);
    order.push(part);
    const members = mergedParts(part);
    if (members.length === 0 || level >= MAX_ALL_OF_DEPTH) continue;
    const parts: JsonObject[] = [];
    for (const member of members) {
      const resolved = resolve(writer, member);
      if (resolved.problem) fields.problems.push(resolved.problem);
      else parts.push(resolved.schema);
    }
    for (let index = parts.length - 1; index >= 0; index--) stack.push([parts[index] as JsonObject, level + 1]);
  }
  for (const part of order) {
    if (isObject(part.properties)) {
      for (const [name, property] of Object.entries(part.properties)) fields.properties.set(name, property);
    }
    if (Array.isArray(part.required)) {
      for (const name of part.required) if (typeof name === 'string') fields.required.add(name);
    }
    if (part.additionalProperties !== undefined && part.additionalProperties !== false) {
      fields.additional ??= part.additionalProperties;
    }
    fields.variants ??= variantsOf(part);
  }
  return fields;
}

function hasFields(fields: Fields): boolean {
  return fields.properties.size > 0 || isObject(fields.additional) || fields.variants !== undefined;
}

/** Follows arrays down to their item schema (arrays of arrays too). */
function itemSchema(writer: SchemaWriter, resolved: Resolved): Resolved {
  let current = resolved;
  for (let level = 0; level < 5 && !current.problem; level++) {
    const types = typesOf(current.schema);
    const isArray = types.includes('array') || (types.length === 0 && current.schema.items !== undefined);
    if (!isArray || current.schema.items === undefined) break;
    current = resolve(writer, current.schema.items);
  }
  return current;
}

/** Facts about a schema for a bullet or a table cell: format, nullable, bounds, default... */
export function schemaFacts(schema: JsonObject): string[] {
  const facts: string[] = [];
  if (typeof schema.format === 'string') facts.push(`format: ${schema.format}`);
  if (schema.nullable === true) facts.push('nullable');
  if (schema.readOnly === true) facts.push('read-only');
  if (schema.writeOnly === true) facts.push('write-only');
  if (schema.deprecated === true) facts.push('deprecated');
  const bounds: [string, string][] = [
    ['minimum', 'minimum'],
    ['exclusiveMinimum', 'exclusive minimum'],
    ['maximum', 'maximum'],
    ['exclusiveMaximum', 'exclusive maximum'],
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
  ];
  for (const [key, name] of bounds) {
    if (typeof schema[key] === 'number') facts.push(`${name}: ${String(schema[key])}`);
  }
  if (typeof schema.pattern === 'string') facts.push(`pattern: ${code(schema.pattern.slice(0, 200))}`);
  if (schema.default !== undefined) facts.push(`default: ${literal(schema.default)}`);
  return facts;
}

/** " One of: `a`, `b`." for an enum (or const), or ''. */
export function enumText(schema: JsonObject): string {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const shown = schema.enum.slice(0, MAX_ENUM_VALUES).map((value) => literal(value, 60));
    const more = schema.enum.length > MAX_ENUM_VALUES ? `, … (${schema.enum.length - MAX_ENUM_VALUES} more)` : '';
    return `One of: ${shown.join(', ')}${more}.`;
  }
  if (schema.const !== undefined) return `Constant: ${literal(schema.const)}.`;
  return '';
}

/** enumText of a schema, or of its array items when it is an array of enum values. */
export function valuesText(writer: SchemaWriter, schema: JsonObject): string {
  const own = enumText(schema);
  if (own || schema.items === undefined) return own;
  const items = resolve(writer, schema.items);
  return items.problem ? '' : enumText(items.schema).replace(/^One of:/, 'Items one of:');
}

/** The type label and facts of a parameter-like schema, for a table cell. */
export function typeCell(writer: SchemaWriter, node: unknown): { type: string; schema: JsonObject } {
  const resolved = resolve(writer, node);
  const type = label(writer, node);
  const facts = resolved.problem ? [] : schemaFacts(resolved.schema).filter((fact) => !fact.startsWith('default:'));
  return { type: facts.length > 0 ? `${type}, ${facts.join(', ')}` : type, schema: resolved.schema };
}

/** One bullet of a written schema, with the bullets below it once expanded. */
interface Entry {
  text: string;
  /** Nesting level of this bullet's fields (1 for a schema's own fields). */
  depth: number;
  /** Named schemas being written above this bullet (a reference back to one is a cycle). */
  path: readonly string[];
  /** What the bullet's children come from: a schema's fields, or a list of variants. */
  source: { kind: 'schema'; resolved: Resolved } | { kind: 'variants'; nodes: unknown[] } | undefined;
  children: Entry[] | undefined;
}

const leaf = (text: string, depth: number): Entry => ({ text, depth, path: [], source: undefined, children: undefined });

/**
 * For a named object schema already written out in this document, or being written (a cycle),
 * the note that replaces its fields; '' when the fields should be written.
 */
function repeatNote(writer: SchemaWriter, target: Resolved, path: readonly string[]): string {
  if (target.problem || !target.name || !hasFields(collectFields(writer, target.schema))) return '';
  if (path.includes(target.name)) return ` (circular reference to ${code(target.name)})`;
  if (writer.expanded.has(target.name)) return ` (fields of ${code(target.name)} are listed elsewhere in this document)`;
  return '';
}

/** Bullets built for one level, and how many there would be in all. */
interface Level {
  entries: Entry[];
  total: number;
}

/**
 * The bullets for the fields of an object schema (its properties, extra properties, variants),
 * at most `limit` of them built.
 */
function fieldEntries(writer: SchemaWriter, target: Resolved, depth: number, path: readonly string[], limit: number): Level {
  const fields = collectFields(writer, target.schema);
  const inner = target.name ? [...path, target.name] : path;
  if (target.name) writer.expanded.add(target.name);
  const total =
    fields.problems.length + fields.properties.size + (fields.additional === undefined ? 0 : 1) + (fields.variants ? 1 : 0);
  const entries: Entry[] = fields.problems.map((problem) => leaf(`(${problem})`, depth));
  for (const [name, property] of fields.properties) {
    if (entries.length >= limit) return { entries, total };
    const resolved = resolve(writer, property);
    const attributes = [label(writer, property)];
    if (fields.required.has(name)) attributes.push('required');
    if (!resolved.problem) attributes.push(...schemaFacts(resolved.schema));
    let text = `${code(name)} (${attributes.join(', ')})`;
    if (!resolved.problem) {
      const description = inlineDescription(resolved.schema.description);
      if (description) text += `: ${description}`;
      const enumeration = valuesText(writer, resolved.schema);
      if (enumeration) text += `${description ? ' ' : '. '}${enumeration}`;
    }
    entries.push({ text, depth, path: inner, source: { kind: 'schema', resolved }, children: undefined });
  }
  if (fields.additional === true) entries.push(leaf('additional properties: any', depth));
  else if (isObject(fields.additional)) {
    const resolved = resolve(writer, fields.additional);
    const text = `additional properties: ${label(writer, fields.additional)}`;
    entries.push({ text, depth, path: inner, source: { kind: 'schema', resolved }, children: undefined });
  }
  if (fields.variants) {
    const text = `${fields.variants.kind === 'one of' ? 'One of' : 'Any of'}:`;
    entries.push({ text, depth, path: inner, source: { kind: 'variants', nodes: fields.variants.nodes }, children: undefined });
  }
  return { entries: entries.slice(0, limit), total };
}

/**
 * The children of an entry (at most `limit` built), or undefined when it has none to show. May
 * add a note to the entry.
 */
function expand(writer: SchemaWriter, entry: Entry, limit: number): Level | undefined {
  const { source } = entry;
  if (!source) return undefined;
  if (source.kind === 'variants') {
    const variants = source.nodes.slice(0, Math.min(MAX_VARIANTS, limit)).map((variant): Entry => {
      const resolved = resolve(writer, variant);
      const description = resolved.problem ? '' : inlineDescription(resolved.schema.description, 300);
      const text = `${label(writer, variant)}${description ? `: ${description}` : ''}`;
      return { text, depth: entry.depth, path: entry.path, source: { kind: 'schema', resolved }, children: undefined };
    });
    return { entries: variants, total: source.nodes.length };
  }
  const target = itemSchema(writer, source.resolved);
  const note = repeatNote(writer, target, entry.path);
  if (note) {
    entry.text += note;
    return undefined;
  }
  if (target.problem || !hasFields(collectFields(writer, target.schema))) return undefined;
  if (entry.depth + 1 > MAX_SCHEMA_DEPTH) return { entries: [leaf('…', entry.depth + 1)], total: 0 };
  return fieldEntries(writer, target, entry.depth + 1, entry.path, limit);
}

/**
 * Lays out the bullets of a schema breadth-first within the budget: every field of a level is
 * listed before any field of the next level, so a large schema keeps its top-level fields and
 * loses only deep detail. Returns the lines, depth-first.
 */
function layout(writer: SchemaWriter, target: Resolved, budget: number): string[] {
  let remaining = budget;
  let cut = false;
  /** Keeps what fits of a level; notes how many more there were. "…" lines are free. */
  const take = (level: Level): Entry[] => {
    const { entries, total } = level;
    const counted = entries.filter((entry) => entry.text !== '…').length;
    if (counted === total && counted <= remaining) {
      remaining -= counted;
      return entries;
    }
    const kept = entries.slice(0, Math.max(0, Math.min(remaining, entries.length)));
    remaining -= kept.length;
    if (total > kept.length) {
      kept.push(leaf(`… (${total - kept.length} more)`, entries[0]?.depth ?? 1));
      cut = remaining <= 0 || cut;
    }
    return kept;
  };
  const top = take(fieldEntries(writer, target, 1, [], budget + 1));
  const queue: Entry[] = [...top];
  for (let index = 0; index < queue.length; index++) {
    const entry = queue[index] as Entry;
    if (remaining <= 0) {
      if (entry.source) cut = true;
      continue;
    }
    const level = expand(writer, entry, remaining + 1);
    if (!level || level.entries.length === 0) continue;
    entry.children = take(level);
    queue.push(...entry.children);
  }
  writer.budget -= budget - remaining;
  const lines: string[] = [];
  const stack: [Entry, number][] = top.map((entry): [Entry, number] => [entry, 0]).reverse();
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [entry, indent] = item;
    lines.push(`${'  '.repeat(indent)}- ${entry.text}`);
    const children = entry.children ?? [];
    for (let index = children.length - 1; index >= 0; index--) stack.push([children[index] as Entry, indent + 1]);
  }
  if (cut) lines.push('- … (deeper fields omitted: the schema is too large to list in full)');
  return lines;
}

/** Lines of fields one schema (a request body, a success response) may use. */
export const MAX_LINES_PER_SCHEMA = 40;
/** Lines of fields for an error response (often one big schema shared by every operation). */
export const MAX_LINES_PER_ERROR_SCHEMA = 8;

/**
 * Markdown for a request or response schema: a "Schema:" line with its type, facts, enum and
 * description, then its fields as a nested bullet list.
 */
export function writeSchema(writer: SchemaWriter, node: unknown, maxLines = MAX_LINES_PER_SCHEMA): string {
  const resolved = resolve(writer, node);
  const target = itemSchema(writer, resolved);
  const note = repeatNote(writer, target, []);
  let head = `Schema: ${label(writer, node)}${note}.`;
  if (!resolved.problem) {
    const facts = schemaFacts(resolved.schema);
    if (facts.length > 0) head += ` (${facts.join(', ')})`;
    const enumeration = enumText(resolved.schema);
    if (enumeration) head += ` ${enumeration}`;
    const description = inlineDescription(resolved.schema.description);
    if (description) head += ` ${description}`;
  }
  if (note !== '' || target.problem || !hasFields(collectFields(writer, target.schema))) return head;
  const budget = Math.min(writer.budget, maxLines);
  if (budget <= 0) return `${head}\n\n- … (fields omitted: this document already lists too many)`;
  const lines = layout(writer, target, budget);
  return `${head}\n\n${lines.join('\n')}`;
}
