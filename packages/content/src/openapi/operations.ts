import { InvalidSpecError } from './errors.ts';
import { type Deref, isObject, type JsonObject, RefResolver } from './refs.ts';
import {
  createSchemaCache,
  createSchemaWriter,
  MAX_LINES_PER_ERROR_SCHEMA,
  MAX_LINES_PER_SCHEMA,
  type SchemaCache,
  type SchemaWriter,
  typeCell,
  valuesText,
  writeSchema,
} from './schema.ts';
import { cell, code, descriptionToMarkdown, inlineDescription, literal } from './text.ts';

export interface OperationDocument {
  operationId: string;
  title: string;
  markdown: string;
  metadata: {
    /** Upper case: GET, POST... */
    method: string;
    path: string;
    tags: string[];
    specTitle: string;
    specVersion: string;
    /** The operation's `externalDocs.url`, when it is an http(s) URL: the document's link. */
    url?: string;
  };
}

export interface OperationsResult {
  operations: OperationDocument[];
  /**
   * Operations left out: without an operationId, repeating one already used, or given as an
   * external $ref.
   */
  skipped: number;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Lines of schema fields per operation document (all its bodies and responses together). */
export const SCHEMA_LINE_BUDGET = 100;
/** Characters of an operation's own description kept. */
const MAX_DESCRIPTION_CHARS = 8_000;
/** Hard cap on a document, whatever it holds. */
export const MAX_DOCUMENT_CHARS = 48_000;

type Dialect = 'swagger2' | 'openapi3';

interface SpecContext {
  dialect: Dialect;
  resolver: RefResolver;
  cache: SchemaCache;
  specTitle: string;
  specVersion: string;
  /** Swagger 2 spec-wide `consumes` / `produces`. */
  consumes: string[];
  produces: string[];
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function dialectOf(spec: JsonObject): Dialect {
  if (spec.openapi !== undefined) {
    const version = typeof spec.openapi === 'number' ? String(spec.openapi) : spec.openapi;
    if (typeof version === 'string' && /^3(?:\.[01](?:\.\d+)?(?:-[\w.]+)?)?$/.test(version.trim())) return 'openapi3';
    throw new InvalidSpecError(
      `unsupported OpenAPI version ${JSON.stringify(spec.openapi)}: supported are Swagger 2.0 and OpenAPI 3.0.x and 3.1.x`,
    );
  }
  if (spec.swagger !== undefined) {
    if (spec.swagger === '2.0' || spec.swagger === 2 || spec.swagger === '2') return 'swagger2';
    throw new InvalidSpecError(
      `unsupported Swagger version ${JSON.stringify(spec.swagger)}: supported are Swagger 2.0 and OpenAPI 3.0.x and 3.1.x`,
    );
  }
  throw new InvalidSpecError("missing version: the spec needs an 'openapi' (3.0.x, 3.1.x) or 'swagger' (2.0) field");
}

const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string' && entry.trim() !== '') : [];

interface Parameter {
  /** Resolved parameter object, or undefined when its $ref could not be followed. */
  value: JsonObject | undefined;
  /** The reference when it could not be followed. */
  problem: string | undefined;
}

/** "external reference: X" and the like, for a `$ref` that was not followed. */
function refProblem(result: Exclude<Deref, { kind: 'value' }>): string {
  const kind = result.kind === 'external' ? 'external' : result.kind === 'missing' ? 'unresolved' : 'circular';
  return `${kind} reference: ${result.ref}`;
}

function resolveParameter(context: SpecContext, node: unknown): Parameter {
  const result = context.resolver.deref(node);
  if (result.kind === 'value') return isObject(result.value) ? { value: result.value, problem: undefined } : { value: undefined, problem: undefined };
  return { value: undefined, problem: refProblem(result) };
}

/**
 * Path-level parameters merged with the operation's: an operation parameter replaces a path one
 * with the same name and location (in place); new ones follow.
 */
function mergeParameters(context: SpecContext, pathLevel: unknown, operationLevel: unknown): Parameter[] {
  const merged: Parameter[] = [];
  const index = new Map<string, number>();
  const add = (node: unknown, override: boolean): void => {
    const parameter = resolveParameter(context, node);
    const key = parameter.value ? `${text(parameter.value.in)}\u0000${text(parameter.value.name)}` : undefined;
    const at = key === undefined ? undefined : index.get(key);
    if (at !== undefined && override) {
      merged[at] = parameter;
      return;
    }
    if (key !== undefined) index.set(key, merged.length);
    merged.push(parameter);
  };
  for (const node of Array.isArray(pathLevel) ? pathLevel : []) add(node, false);
  for (const node of Array.isArray(operationLevel) ? operationLevel : []) add(node, true);
  return merged;
}

/** The schema of a parameter: OpenAPI 3 `schema` or `content`; Swagger 2 the parameter itself. */
function parameterSchema(context: SpecContext, parameter: JsonObject): unknown {
  if (context.dialect === 'swagger2') return parameter;
  if (parameter.schema !== undefined) return parameter.schema;
  if (isObject(parameter.content)) {
    const first = Object.values(parameter.content)[0];
    if (isObject(first)) return first.schema;
  }
  return undefined;
}

function parametersTable(context: SpecContext, writer: SchemaWriter, parameters: Parameter[]): string | undefined {
  const rows: string[] = [];
  for (const parameter of parameters) {
    if (!parameter.value) {
      if (parameter.problem) rows.push(`| (${cell(parameter.problem)}) |  |  |  |  |`);
      continue;
    }
    const { value } = parameter;
    if (text(value.name).trim() === '') continue;
    const location = text(value.in);
    if (context.dialect === 'swagger2' && (location === 'body' || location === 'formData')) continue;
    const schemaNode = parameterSchema(context, value);
    const { type, schema } = schemaNode === undefined ? { type: 'any', schema: {} } : typeCell(writer, schemaNode);
    const required = value.required === true || location === 'path';
    const notes = [inlineDescription(value.description)];
    if (value.deprecated === true) notes.push('Deprecated.');
    notes.push(valuesText(writer, schema));
    if (schema.default !== undefined) notes.push(`Default: ${literal(schema.default)}.`);
    const description = notes.filter(Boolean).join(' ');
    rows.push(`| ${cell(code(text(value.name)))} | ${cell(location)} | ${cell(type)} | ${required ? 'yes' : 'no'} | ${cell(description)} |`);
  }
  if (rows.length === 0) return undefined;
  return ['## Parameters', '', '| Name | In | Type | Required | Description |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

function contentTypesLine(types: string[]): string {
  if (types.length === 0) return '';
  return `${types.length === 1 ? 'Content type' : 'Content types'}: ${types.map(code).join(', ')}`;
}

/**
 * OpenAPI 3 `content`: one block per distinct schema, listing the media types that share it (a
 * body accepted as JSON and as form data is written once).
 */
function contentBlocks(writer: SchemaWriter, content: unknown, maxLines?: number): string[] {
  if (!isObject(content)) return [];
  const groups: { types: string[]; schema: unknown }[] = [];
  for (const [mediaType, media] of Object.entries(content)) {
    const schema = isObject(media) ? media.schema : undefined;
    const same = groups.find((group) => group.schema === schema || (isObject(group.schema) && isObject(schema) && sameRef(group.schema, schema)));
    if (same) same.types.push(mediaType);
    else groups.push({ types: [mediaType], schema });
  }
  return groups.map((group) => {
    const parts = [contentTypesLine(group.types)];
    if (group.schema !== undefined) parts.push(writeSchema(writer, group.schema, maxLines));
    return parts.join('\n\n');
  });
}

function sameRef(a: JsonObject, b: JsonObject): boolean {
  return typeof a.$ref === 'string' && a.$ref === b.$ref && Object.keys(a).length === 1 && Object.keys(b).length === 1;
}

function requestBodySection(context: SpecContext, writer: SchemaWriter, operation: JsonObject, parameters: Parameter[]): string | undefined {
  const parts: string[] = [];
  if (context.dialect === 'openapi3') {
    if (operation.requestBody === undefined) return undefined;
    const result = context.resolver.deref(operation.requestBody);
    if (result.kind !== 'value') {
      parts.push(`(${refProblem(result)})`);
    } else if (isObject(result.value)) {
      const body = result.value;
      const intro = [body.required === true ? 'Required.' : 'Optional.', descriptionToMarkdown(text(body.description))].filter(Boolean).join(' ');
      parts.push(intro, ...contentBlocks(writer, body.content));
    }
  } else {
    const consumes = strings(operation.consumes).length > 0 ? strings(operation.consumes) : context.consumes;
    const body = parameters.find((parameter) => parameter.value?.in === 'body')?.value;
    const form = parameters.filter((parameter) => parameter.value?.in === 'formData').map((parameter) => parameter.value as JsonObject);
    if (!body && form.length === 0) return undefined;
    if (body) {
      const intro = [body.required === true ? 'Required.' : 'Optional.', descriptionToMarkdown(text(body.description))].filter(Boolean).join(' ');
      parts.push(intro, contentTypesLine(consumes));
      if (body.schema !== undefined) parts.push(writeSchema(writer, body.schema));
    } else {
      const fields = form.map((field) => {
        const { type, schema } = typeCell(writer, field);
        const facts = [type, ...(field.required === true ? ['required'] : [])].join(', ');
        const notes = [inlineDescription(field.description), valuesText(writer, schema)];
        if (schema.default !== undefined) notes.push(`Default: ${literal(schema.default)}.`);
        const description = notes.filter(Boolean).join(' ');
        return `- ${code(text(field.name))} (${facts})${description ? `: ${description}` : ''}`;
      });
      parts.push(contentTypesLine(consumes.length > 0 ? consumes : ['application/x-www-form-urlencoded']), 'Form fields:', fields.join('\n'));
    }
  }
  const body = parts.filter(Boolean);
  return body.length > 0 ? ['## Request body', '', body.join('\n\n')].join('\n') : undefined;
}

function headersList(context: SpecContext, writer: SchemaWriter, headers: unknown): string {
  if (!isObject(headers)) return '';
  const lines: string[] = [];
  for (const [name, node] of Object.entries(headers)) {
    const result = context.resolver.deref(node);
    if (result.kind !== 'value' || !isObject(result.value)) {
      lines.push(`- ${code(name)}`);
      continue;
    }
    const header = result.value;
    const schemaNode = context.dialect === 'swagger2' ? header : header.schema;
    const type = schemaNode === undefined ? 'any' : typeCell(writer, schemaNode).type;
    const description = inlineDescription(header.description);
    lines.push(`- ${code(name)} (${type})${description ? `: ${description}` : ''}`);
  }
  return lines.length > 0 ? `Headers:\n\n${lines.join('\n')}` : '';
}

function responsesSection(context: SpecContext, writer: SchemaWriter, operation: JsonObject): string | undefined {
  if (!isObject(operation.responses)) return undefined;
  const produces = strings(operation.produces).length > 0 ? strings(operation.produces) : context.produces;
  const sections: string[] = [];
  for (const [status, node] of Object.entries(operation.responses)) {
    if (status.startsWith('x-')) continue;
    const parts = [`### ${status}`];
    const maxLines = /^(?:default|[45])/i.test(status) ? MAX_LINES_PER_ERROR_SCHEMA : MAX_LINES_PER_SCHEMA;
    const result = context.resolver.deref(node);
    if (result.kind !== 'value') {
      parts.push(`(${refProblem(result)})`);
    } else if (isObject(result.value)) {
      const response = result.value;
      const description = descriptionToMarkdown(text(response.description));
      if (description) parts.push(description);
      if (context.dialect === 'openapi3') {
        parts.push(...contentBlocks(writer, response.content, maxLines));
      } else if (response.schema !== undefined) {
        parts.push(contentTypesLine(produces), writeSchema(writer, response.schema, maxLines));
      }
      parts.push(headersList(context, writer, response.headers));
    }
    sections.push(parts.filter(Boolean).join('\n\n'));
  }
  return sections.length > 0 ? ['## Responses', '', sections.join('\n\n')].join('\n') : undefined;
}

function renderOperation(context: SpecContext, path: string, method: string, operation: JsonObject, operationId: string, pathItem: JsonObject): OperationDocument {
  const METHOD = method.toUpperCase();
  const summary = inlineDescription(operation.summary, 200);
  const title = summary || `${METHOD} ${path}`;
  const tags = strings(operation.tags);
  const writer = createSchemaWriter(context.resolver, SCHEMA_LINE_BUDGET, context.cache);
  const parameters = mergeParameters(context, pathItem.parameters, operation.parameters);

  const sections: string[] = [`# ${title}`, `${code(`${METHOD} ${path}`)}`];
  let description = descriptionToMarkdown(text(operation.description).slice(0, MAX_DESCRIPTION_CHARS * 2));
  if (description.length > MAX_DESCRIPTION_CHARS) description = `${description.slice(0, MAX_DESCRIPTION_CHARS)}…`;
  if (description) sections.push(description);
  const facts = [`Operation ID: ${code(operationId)}`];
  if (tags.length > 0) facts.push(`Tags: ${tags.join(', ')}`);
  sections.push(facts.join('\\\n'));
  if (operation.deprecated === true) sections.push('**Deprecated:** this operation is deprecated.');
  let url: string | undefined;
  if (isObject(operation.externalDocs) && typeof operation.externalDocs.url === 'string') {
    const given = operation.externalDocs.url.trim();
    if (/^https?:\/\//i.test(given) && URL.canParse(given)) url = given;
    const label = inlineDescription(operation.externalDocs.description, 200) || 'External documentation';
    sections.push(`${label}: <${operation.externalDocs.url.replace(/[<>\s]/g, '')}>`);
  }
  const parameterTable = parametersTable(context, writer, parameters);
  if (parameterTable) sections.push(parameterTable);
  const requestBody = requestBodySection(context, writer, operation, parameters);
  if (requestBody) sections.push(requestBody);
  const responses = responsesSection(context, writer, operation);
  if (responses) sections.push(responses);

  let markdown = `${sections.join('\n\n')}\n`;
  if (markdown.length > MAX_DOCUMENT_CHARS) {
    const cut = markdown.lastIndexOf('\n', MAX_DOCUMENT_CHARS);
    markdown = `${markdown.slice(0, cut > 0 ? cut : MAX_DOCUMENT_CHARS)}\n\n… (truncated: the document is too large)\n`;
  }
  return {
    operationId,
    title,
    markdown,
    metadata: { method: METHOD, path, tags, specTitle: context.specTitle, specVersion: context.specVersion, ...(url ? { url } : {}) },
  };
}

/**
 * One Markdown document per operation that has an operationId, in spec order. Swagger 2.0 and
 * OpenAPI 3.0 / 3.1 are accepted; anything else is an InvalidSpecError. Internal `$ref`s are
 * followed (cycles end in a note naming the schema); external ones are never fetched, only
 * named. A document depends only on its operation and what that references (plus the spec's
 * title and version in metadata), so editing one operation changes only its document.
 */
export function operationsFromSpec(spec: unknown): OperationsResult {
  if (!isObject(spec)) throw new InvalidSpecError(`the spec must be an object (a JSON or YAML mapping), not ${kindOf(spec)}`);
  const dialect = dialectOf(spec);
  const { paths } = spec;
  if (paths === undefined) {
    const webhooks = isObject(spec.webhooks) && Object.keys(spec.webhooks).length > 0;
    throw new InvalidSpecError(`the spec has no 'paths'${webhooks ? ' (it only describes webhooks, which are not ingested)' : ''}`);
  }
  if (!isObject(paths)) throw new InvalidSpecError(`'paths' must be an object, not ${kindOf(paths)}`);
  const info = isObject(spec.info) ? spec.info : {};
  const context: SpecContext = {
    dialect,
    resolver: new RefResolver(spec),
    cache: createSchemaCache(),
    specTitle: text(info.title).trim(),
    specVersion: text(info.version).trim(),
    consumes: strings(spec.consumes),
    produces: strings(spec.produces),
  };

  const operations: OperationDocument[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  // Path items or operations given as external $refs (multi-file specs): never followed.
  const external: string[] = [];
  for (const [path, node] of Object.entries(paths)) {
    if (path.startsWith('x-')) continue;
    const result = context.resolver.deref(node);
    if (result.kind === 'external') external.push(result.ref);
    if (result.kind !== 'value' || !isObject(result.value)) continue;
    const pathItem = result.value;
    for (const method of HTTP_METHODS) {
      if (pathItem[method] === undefined) continue;
      const resolved = context.resolver.deref(pathItem[method]);
      if (resolved.kind === 'external') {
        external.push(resolved.ref);
        skipped++;
        continue;
      }
      const operation = resolved.kind === 'value' ? resolved.value : undefined;
      if (!isObject(operation)) continue;
      const operationId = typeof operation.operationId === 'string' ? operation.operationId.trim() : '';
      if (operationId === '' || seen.has(operationId)) {
        skipped++;
        continue;
      }
      seen.add(operationId);
      operations.push(renderOperation(context, path, method, operation, operationId, pathItem));
    }
  }
  if (operations.length === 0 && external.length > 0) {
    throw new InvalidSpecError(
      `the operations are external $refs (${external.length}, e.g. ${JSON.stringify(external[0]?.slice(0, 200))}), which are never fetched: bundle the spec into one document first`,
    );
  }
  return { operations, skipped };
}
