/**
 * fast-check arbitraries read off the OpenAPI document's JSON Schemas: values the document says
 * are valid, and values it says are not (each invalid value breaks exactly one documented rule,
 * so the 400 it must get has one cause).
 */
import fc from 'fast-check';

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  format?: string;
  pattern?: string;
  nullable?: boolean;
  default?: unknown;
}

/** What the generator may substitute for a value a schema alone cannot make useful. */
export interface Hints {
  /** Resolves `#/components/...` references. */
  resolve(ref: string): JsonSchema;
  /** A URL the server can fetch (format uri/url), e.g. a local page. */
  url: fc.Arbitrary<string>;
  /**
   * The values of a field of this name: the generated ones, or others that the document states in
   * words (a BCP 47 tag, a URL) or that name stored rows (ids that exist) mixed in.
   */
  named(name: string, generated: fc.Arbitrary<unknown>): fc.Arbitrary<unknown>;
}

/** Longest string generated in the ordinary case; the documented maximum is tried separately. */
const SHORT = 24;
/** Longest documented maximum tried exactly (a larger one is tried only below it). */
const LONGEST_BOUNDARY = 100_000;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function deref(schema: JsonSchema, hints: Hints): JsonSchema {
  let current = schema;
  for (let depth = 0; current.$ref !== undefined && depth < 16; depth++) current = { ...hints.resolve(current.$ref), ...withoutRef(current) };
  return current;
}

function withoutRef(schema: JsonSchema): JsonSchema {
  const { $ref: _ref, ...rest } = schema;
  return rest;
}

function types(schema: JsonSchema): string[] {
  const declared = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  return schema.nullable ? [...declared, 'null'] : declared;
}

/**
 * Any text of `min` to `max` characters (code points, as the document counts them), from every
 * plane. Text holds no NUL and no unpaired surrogate (the API documents both as a 400): each
 * becomes another character, so the length stays.
 */
function text(min: number, max: number): fc.Arbitrary<string> {
  const anyText = fc.string({ unit: 'binary', minLength: min, maxLength: max }).map((value) => value.replaceAll('\0', ' ').replace(LONE_SURROGATE, '\uFFFD'));
  const plain = fc.string({ unit: 'binary-ascii', minLength: min, maxLength: max }).map((value) => value.replaceAll('\0', ' '));
  return fc.oneof(anyText, plain);
}

function stringValue(schema: JsonSchema, hints: Hints): fc.Arbitrary<string> {
  if (schema.format === 'uri' || schema.format === 'url') return hints.url;
  if (schema.format === 'uuid') return fc.uuid({ version: 4 });
  if (schema.format === 'date-time') {
    return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  }
  if (schema.format === 'email') return fc.emailAddress();
  // An anchored pattern describes the whole value; an unanchored one (such as \S: not blank) only
  // something it must contain, within the length bounds.
  if (schema.pattern?.startsWith('^')) return fc.stringMatching(new RegExp(schema.pattern));
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 10_000;
  const ordinary = text(min, Math.max(min, Math.min(max, SHORT)));
  const arbitraries: fc.Arbitrary<string>[] = [ordinary, ordinary, ordinary];
  if (max <= LONGEST_BOUNDARY) arbitraries.push(text(max, max));
  const any = fc.oneof(...arbitraries);
  if (schema.pattern === undefined) return any;
  const contains = new RegExp(schema.pattern, 'u');
  return any.filter((value) => contains.test(value));
}

function numberValue(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const low = Math.max(schema.minimum ?? -1e9, schema.exclusiveMinimum === undefined ? -Infinity : schema.exclusiveMinimum + (integer ? 1 : 1e-9));
  const high = Math.min(schema.maximum ?? 1e9, schema.exclusiveMaximum === undefined ? Infinity : schema.exclusiveMaximum - (integer ? 1 : 1e-9));
  if (integer) {
    // Small values are the ones that select rows; the documented edges are tried as they are.
    const small = fc.integer({ min: Math.max(low, -1000), max: Math.min(high, Math.max(low, -1000) + 2000) });
    return fc.oneof(small, small, fc.constantFrom(low, high), fc.integer({ min: Math.max(low, Number.MIN_SAFE_INTEGER), max: Math.min(high, Number.MAX_SAFE_INTEGER) }));
  }
  return fc.double({ min: low, max: high, noNaN: true, noDefaultInfinity: true });
}

/** Values the schema accepts. `name` is the field's name, for hints. */
export function validValue(input: JsonSchema, hints: Hints, name = ''): fc.Arbitrary<unknown> {
  return hints.named(name, fromSchema(deref(input, hints), hints, name));
}

function fromSchema(schema: JsonSchema, hints: Hints, name: string): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined) return fc.oneof(...alternatives.map((alternative) => validValue(alternative, hints, name)));
  if (schema.allOf !== undefined) return fromSchema(Object.assign({}, ...schema.allOf.map((part) => deref(part, hints))) as JsonSchema, hints, name);
  const kinds = types(schema);
  if (kinds.length > 1) return fc.oneof(...kinds.map((kind) => fromSchema({ ...schema, type: kind, nullable: false }, hints, name)));
  switch (kinds[0]) {
    case 'string':
      return stringValue(schema, hints);
    case 'integer':
      return numberValue(schema, true);
    case 'number':
      return numberValue(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(deref(schema.items ?? {}, hints), hints, name), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, Math.max(schema.minItems ?? 0, 5)) });
    case 'object':
      return objectValue(schema, hints);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectValue(schema: JsonSchema, hints: Hints): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  if (names.length === 0) {
    // A free-form object (metadata, an OpenAPI spec): any JSON members.
    return schema.additionalProperties === false ? fc.constant({}) : fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  }
  const record = Object.fromEntries(names.map((key) => [key, validValue(properties[key]!, hints, key)]));
  return fc.record(record, { requiredKeys: (schema.required ?? []).filter((key) => key in properties) }) as fc.Arbitrary<Record<string, unknown>>;
}

/** One way a value breaks its schema, described for the failure report. */
export interface Violation {
  value: unknown;
  rule: string;
}

const UNKNOWN_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'extra', 'Query', 'x'];

/** A member named like an object's own property must still be an own member in the JSON text. */
function withMember(target: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  const copy = { ...target };
  Object.defineProperty(copy, name, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** A JSON value of another kind than every kind the schema allows (undefined when all are allowed). */
function otherKind(schema: JsonSchema, hints: Hints): fc.Arbitrary<unknown> | undefined {
  const resolved = deref(schema, hints);
  if (resolved.anyOf ?? resolved.oneOf ?? resolved.allOf) return undefined;
  const allowed = new Set(types(resolved));
  if (resolved.enum !== undefined) for (const value of resolved.enum) allowed.add(value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value);
  if (allowed.size === 0) return undefined;
  if (allowed.has('integer')) allowed.add('number');
  const candidates: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 8 }),
    number: fc.double({ noNaN: true, noDefaultInfinity: true }),
    boolean: fc.boolean(),
    null: fc.constant(null),
    array: fc.array(fc.integer(), { maxLength: 3 }),
    object: fc.constant({ nested: true }),
  };
  const others = Object.entries(candidates).filter(([kind]) => !allowed.has(kind)).map(([, arbitrary]) => arbitrary);
  return others.length > 0 ? fc.oneof(...others) : undefined;
}

/** Values that break one bound of the schema (length, range, enum, item count). */
function outOfBounds(schema: JsonSchema, hints: Hints, inUrl = false): fc.Arbitrary<unknown>[] {
  const resolved = deref(schema, hints);
  const found: fc.Arbitrary<unknown>[] = [];
  if (resolved.enum !== undefined && resolved.enum.every((value) => typeof value === 'string')) {
    found.push(fc.string({ minLength: 1, maxLength: 12 }).filter((value) => !resolved.enum!.includes(value)));
  }
  const kind = types(resolved)[0];
  if (kind === 'string' && resolved.pattern === '\\S') found.push(fc.constantFrom(' ', '\t\n', '\u00a0 \u2003'));
  if (kind === 'string' && resolved.enum === undefined && resolved.format === undefined && !resolved.pattern?.startsWith('^')) {
    if (resolved.maxLength !== undefined && resolved.maxLength < LONGEST_BOUNDARY) {
      // Text that must not be blank (pattern \S) is trimmed before its length counts
      // (docs/api.md): too long means too long once trimmed.
      const tooLong = text(resolved.maxLength + 1, resolved.maxLength + 3);
      found.push(resolved.pattern === '\\S' ? tooLong.filter((value) => value.trim().length === value.length) : tooLong);
    }
    if ((resolved.minLength ?? 0) > 0) found.push(fc.constant(''));
    // A URL cannot carry an unpaired surrogate (it is sent as U+FFFD); JSON can.
    found.push(inUrl ? fc.constant('nul\0inside') : fc.constantFrom('nul\0inside', 'lone \uD800 surrogate'));
  }
  if (kind === 'string' && (resolved.format === 'uuid' || resolved.format === 'date-time')) found.push(fc.constantFrom('not-a-date-or-id', '2026-13-45T99:99:99Z'));
  if (kind === 'integer' || kind === 'number') {
    if (resolved.maximum !== undefined && resolved.maximum < Number.MAX_SAFE_INTEGER) found.push(fc.integer({ min: resolved.maximum + 1, max: resolved.maximum + 1000 }));
    if (resolved.minimum !== undefined && resolved.minimum > Number.MIN_SAFE_INTEGER) found.push(fc.integer({ min: resolved.minimum - 1000, max: resolved.minimum - 1 }));
    if (kind === 'integer') found.push(fc.constantFrom(1.5, 0.25));
  }
  if (kind === 'array' && resolved.maxItems !== undefined && resolved.maxItems < 1000) {
    found.push(fc.array(validValue(resolved.items ?? {}, hints), { minLength: resolved.maxItems + 1, maxLength: resolved.maxItems + 2 }));
  }
  return found;
}

/** Objects that break exactly one rule of an object schema, each with the rule named. */
export function invalidObject(input: JsonSchema, hints: Hints): fc.Arbitrary<Violation> {
  const schema = deref(input, hints);
  const properties = schema.properties ?? {};
  const base = validValue(schema, hints) as fc.Arbitrary<Record<string, unknown>>;
  const choices: fc.Arbitrary<Violation>[] = [
    fc.constantFrom<unknown>([1, 2, 3], 'text', 42, null, true, []).map((value) => ({ value, rule: 'not a JSON object' })),
  ];
  if (schema.additionalProperties === false && Object.keys(properties).length > 0) {
    choices.push(
      fc.tuple(base, fc.constantFrom(...UNKNOWN_NAMES), fc.jsonValue({ maxDepth: 1 })).map(([value, name, member]) => ({
        value: withMember(value, name, member),
        rule: `unknown member ${JSON.stringify(name)}`,
      })),
    );
  }
  for (const name of schema.required ?? []) {
    choices.push(base.map((value) => {
      const { [name]: _dropped, ...rest } = value;
      return { value: rest, rule: `required member ${name} missing` };
    }));
  }
  for (const [name, property] of Object.entries(properties)) {
    const wrong = otherKind(property, hints);
    if (wrong !== undefined) choices.push(fc.tuple(base, wrong).map(([value, bad]) => ({ value: withMember(value, name, bad), rule: `${name} of the wrong type` })));
    for (const bad of outOfBounds(property, hints)) {
      choices.push(fc.tuple(base, bad).map(([value, member]) => ({ value: withMember(value, name, member), rule: `${name} out of its bounds` })));
    }
  }
  return fc.oneof(...choices);
}

/** Values of a query or path parameter that break its schema, as the strings a URL carries. */
export function invalidParameter(input: JsonSchema, hints: Hints): fc.Arbitrary<string> | undefined {
  const schema = deref(input, hints);
  const kind = types(schema)[0];
  const choices: fc.Arbitrary<string>[] = outOfBounds(schema, hints, true).map((arbitrary) => arbitrary.map((value) => String(value)));
  if (kind === 'integer' || kind === 'number') choices.push(fc.constantFrom('ten', '1e999', 'NaN'));
  return choices.length > 0 ? fc.oneof(...choices) : undefined;
}
