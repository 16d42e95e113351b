import { NAMESPACES } from '@kb/core';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { appRouter } from './root.ts';
import { addChatPath } from './routers/chat/openapi.ts';
import type { Meta } from './trpc.ts';

export const API_BASE_PATH = '/api/v1';

type Operation = { responses?: Record<string, unknown> };

/** The OpenAPI 3 document of the REST API, generated from the router. */
export function buildOpenApiDocument(options: { version: string; serverUrl?: string }): ReturnType<typeof generateOpenApiDocument> {
  const document = generateOpenApiDocument(appRouter, {
    title: 'Knowledge base service API',
    description:
      'Search documentation, get cited answers, and manage the knowledge base. Authenticate with "Authorization: Bearer kb_..." ' +
      'or, for admin endpoints, an admin session cookie from POST /auth/login. Errors are JSON: { message, code, issues? }.',
    version: options.version,
    baseUrl: options.serverUrl ?? API_BASE_PATH,
    securitySchemes: {
      Authorization: { type: 'http', scheme: 'bearer', description: 'An API key: kb_ followed by 40 base62 characters' },
      AdminSession: { type: 'apiKey', in: 'cookie', name: 'kb_session', description: 'Admin session from POST /auth/login' },
    },
  });

  // The generator labels every success "200"; move the ones that answer 201/202.
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: Meta } }>;
  for (const procedure of Object.values(procedures)) {
    const meta = procedure._def.meta;
    if (!meta?.openapi || !meta.successStatus) continue;
    const path = meta.openapi.path.replace(/\{(\w+)\}/g, '{$1}');
    const operation = (document.paths?.[path] as Record<string, Operation> | undefined)?.[meta.openapi.method.toLowerCase()];
    if (operation?.responses?.['200']) {
      operation.responses[String(meta.successStatus)] = operation.responses['200'];
      delete operation.responses['200'];
    }
  }
  // POST /ingest/openapi takes the raw spec as its body and the namespace from the query.
  const openapiIngest = (document.paths?.['/ingest/openapi'] as Record<string, Record<string, unknown>> | undefined)?.post;
  if (openapiIngest) {
    openapiIngest.requestBody = {
      required: true,
      description: 'The raw OpenAPI 3.x or Swagger 2.0 spec (at most 25 MB)',
      content: {
        'application/json': { schema: { type: 'object' } },
        'application/yaml': { schema: { type: 'string' } },
      },
    };
    openapiIngest.parameters = [
      {
        name: 'namespace',
        in: 'query',
        required: false,
        description: 'Target namespace (default api_endpoints)',
        schema: { type: 'string', enum: [...NAMESPACES] },
      },
    ];
  }
  addChatPath(document as Parameters<typeof addChatPath>[0]);
  return document;
}
