import { NAMESPACES } from '@kb/core';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { ERROR_SCHEMA, ERROR_SCHEMA_NAME, operationResponses, operationSecurity, SHARED_HEADERS, SHARED_RESPONSES } from './openapi-responses.ts';
import { appRouter } from './root.ts';
import { addChatPath } from './routers/chat/openapi.ts';
import { addFilePath } from './routers/ingest/file-openapi.ts';
import { describeSourceSettings } from './routers/sources/openapi-settings.ts';
import type { Meta } from './trpc.ts';

export const API_BASE_PATH = '/api/v1';

type Json = Record<string, unknown>;
type Operation = {
  parameters?: Array<{ name: string; in?: string; example?: unknown } & Json>;
  requestBody?: { content?: Record<string, Json> };
  responses?: Record<string, Json>;
  security?: unknown;
};
export type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;

/** A procedure published under /api/v1, with its route and meta. */
export interface PublishedProcedure {
  name: string;
  method: string;
  path: string;
  meta: Meta;
  procedure: { _def: { meta?: Meta; inputs: unknown[]; output?: unknown } };
}

/** Every procedure the REST API publishes: through the adapter (meta.openapi) or a route of its own (meta.restRoute). */
export function publishedProcedures(): PublishedProcedure[] {
  const procedures = appRouter._def.procedures as unknown as Record<string, PublishedProcedure['procedure']>;
  return Object.entries(procedures).flatMap(([name, procedure]) => {
    const meta = procedure._def.meta;
    const route = meta?.openapi ?? meta?.restRoute;
    return meta && route ? [{ name, method: route.method, path: route.path, meta, procedure }] : [];
  });
}

/** The errors a procedure declares: its meta's `errors`, and trpc-to-openapi's own `errorResponses` when written as a map. */
function declaredErrors(meta: Meta): Partial<Record<number, string>> {
  const generator = meta.openapi?.errorResponses;
  return { ...(generator && !Array.isArray(generator) ? (generator as Record<number, string>) : {}), ...meta.errors };
}

/** The example of a procedure: input fields on the parameters of the same name, the rest as the JSON body; the output on the success answer. */
function addExample(operation: Operation, example: NonNullable<Meta['example']>): void {
  const body: Json = {};
  for (const [name, value] of Object.entries(example.input ?? {})) {
    const parameter = operation.parameters?.find((candidate) => candidate.name === name);
    if (parameter) parameter.example = value;
    else body[name] = value;
  }
  const json = operation.requestBody?.content?.['application/json'];
  if (json && !('example' in json)) json.example = body;
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const content = (response.content as Record<string, Json> | undefined)?.['application/json'];
    if (status.startsWith('2') && content) content.example = example.output;
  }
}

/** POST /ingest/openapi takes the raw spec as its body and the namespace from the query. */
function describeRawSpecBody(operation: Operation & Json): void {
  const yaml = 'openapi: 3.0.3\ninfo: { title: Pets, version: "1" }\npaths:\n  /pets:\n    get:\n      operationId: listPets\n      summary: List pets\n      responses: { "200": { description: OK } }\n';
  operation.requestBody = {
    required: true,
    description: 'The raw OpenAPI 3.x or Swagger 2.0 spec (at most KB_MAX_SPEC_BYTES, 25 MB by default)',
    content: {
      'application/json': {
        schema: { type: 'object' },
        example: { openapi: '3.0.3', info: { title: 'Pets', version: '1' }, paths: { '/pets': { get: { operationId: 'listPets', summary: 'List pets', responses: { 200: { description: 'OK' } } } } } },
      },
      'application/yaml': { schema: { type: 'string' }, example: yaml },
    },
  } as Operation['requestBody'];
  operation.parameters = [
    { name: 'namespace', in: 'query', required: false, description: 'Target namespace (default api_endpoints)', schema: { type: 'string', enum: [...NAMESPACES] } },
  ];
}

/** The routes that publish the contract itself, served by the HTTP host beside the procedures. */
export const REFERENCE_PATHS = ['/openapi.json', '/docs'] as const;

function addReferencePaths(paths: Record<string, unknown>): void {
  paths['/openapi.json'] = {
    get: {
      operationId: 'openapi',
      summary: 'This document (OpenAPI 3.1)',
      tags: ['reference'],
      security: [],
      responses: { '200': { description: 'The document, cached for 5 minutes', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };
  paths['/docs'] = {
    get: {
      operationId: 'docs',
      summary: 'The API reference: this document rendered in the browser (Swagger UI, served from this server)',
      tags: ['reference'],
      security: [],
      responses: { '200': { description: 'An HTML page; its scripts and styles are below /docs/', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  };
}

/**
 * The OpenAPI 3 document of the REST API, generated from the router and completed from each
 * procedure's meta: success statuses, who may call it, every error it can answer (one schema),
 * and its example. A new procedure gets all of it from its meta alone.
 */
export function buildOpenApiDocument(options: { version: string; serverUrl?: string }): OpenApiDocument {
  const document = generateOpenApiDocument(appRouter, {
    title: 'Knowledge base service API',
    description:
      'Search documentation, get cited answers, and manage the knowledge base. Authenticate with "Authorization: Bearer kb_..." ' +
      'or, for admin endpoints, an admin session cookie from POST /auth/login. Errors are JSON: { message, code, requestId, issues? }. ' +
      'Requests made with a key carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers; a 429 carries Retry-After.',
    version: options.version,
    baseUrl: options.serverUrl ?? API_BASE_PATH,
    securitySchemes: {
      Authorization: { type: 'http', scheme: 'bearer', description: 'An API key: kb_ followed by 40 base62 characters' },
      AdminSession: { type: 'apiKey', in: 'cookie', name: 'kb_session', description: 'Admin session from POST /auth/login' },
    },
  });
  addChatPath(document as Parameters<typeof addChatPath>[0]);
  addFilePath(document as Parameters<typeof addFilePath>[0]);
  describeSourceSettings(document as Parameters<typeof describeSourceSettings>[0]);
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation & Json>>;
  const rawSpec = paths['/ingest/openapi']?.post;
  if (rawSpec) describeRawSpecBody(rawSpec);

  for (const { method, path, meta } of publishedProcedures()) {
    const operation = paths[path]?.[method.toLowerCase()];
    if (!operation) continue;
    const responses = operation.responses ?? {};
    // The generator labels every success "200"; move the ones that answer 201/202.
    if (meta.successStatus && responses['200']) {
      responses[String(meta.successStatus)] = responses['200'];
      delete responses['200'];
    }
    const auth = meta.auth ?? 'admin';
    operation.security = operationSecurity(auth);
    operation.responses = operationResponses(responses, {
      method,
      auth,
      errors: declaredErrors(meta),
      ...(meta.limitedPerClient ? { limitedPerClient: true } : {}),
      ...(meta.publishable ? { publishable: true } : {}),
    });
    if (meta.example) addExample(operation, meta.example);
  }

  // The generator's per-code error schemas give way to the one error schema.
  const components = (document.components ??= {}) as Record<string, Record<string, unknown>>;
  const schemas = (components.schemas ??= {});
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas[ERROR_SCHEMA_NAME] = ERROR_SCHEMA;
  components.responses = { ...components.responses, ...SHARED_RESPONSES };
  components.headers = { ...components.headers, ...SHARED_HEADERS };
  addReferencePaths(paths);
  return document;
}
