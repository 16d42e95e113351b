import { APP_ERROR_STATUS, type AppErrorCode } from '@kb/core';
import type { AuthLevel } from './context.ts';

/**
 * The error answers of an operation in the OpenAPI document, derived from what its procedure's
 * meta says rather than written per route: who may call it (401, 403, and 429 from the per-key
 * limiter), that it takes input (400), that it has a body (413, 415), the outages any operation
 * may meet (503), and the domain errors it declares itself. Pure: no I/O, no router.
 */

/**
 * Statuses a procedure declares in its meta: the ones its access, input and body do not imply, or
 * an implied one it describes better (a declared description replaces the derived one; a 503 adds to it).
 */
export type DeclaredErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 502 | 503;

/** What of a procedure's meta the document's responses depend on. */
export interface OperationTraits {
  method: string;
  auth: AuthLevel;
  /** Status -> description of the errors the procedure answers itself. */
  errors: Partial<Record<number, string>>;
  /** A public operation limited per client address, whose answers carry the RateLimit-* headers. */
  limitedPerClient?: boolean;
  /** Open to publishable keys: a public one then takes a key too (and can refuse it). */
  publishable?: boolean;
}

/** The code of each status: the one status map, read backwards. */
const ERROR_CODES: Record<number, AppErrorCode> = Object.fromEntries(
  Object.entries(APP_ERROR_STATUS).map(([code, status]) => [status, code as AppErrorCode]),
);

export const ERROR_SCHEMA_NAME = 'Error';

/** The one error body of every /api/v1 route. */
export const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every error answer: a readable message, the code of its status, and for invalid input the problems found',
  properties: {
    message: { type: 'string', description: 'What went wrong, for a person; unknown fields are named' },
    code: { type: 'string', enum: Object.keys(APP_ERROR_STATUS) },
    requestId: { type: 'string', description: "The request's X-Request-Id: every log line of the request carries it" },
    issues: {
      type: 'array',
      description: 'Invalid input only: one entry per problem (zod issues), at most 20',
      items: {
        type: 'object',
        properties: {
          code: { type: 'string', description: 'e.g. invalid_type, too_big, unrecognized_keys' },
          path: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }] }, description: 'Where in the input' },
          message: { type: 'string' },
          keys: { type: 'array', items: { type: 'string' }, description: 'unrecognized_keys: the unknown field names (at most 10)' },
          keysTotal: { type: 'integer', description: 'unrecognized_keys: how many unknown fields there were, when more than keys lists' },
        },
        required: ['message'],
      },
    },
  },
  required: ['message', 'code'],
};

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });

/** The headers the document shares (components.headers). */
export const SHARED_HEADERS = {
  'RateLimit-Limit': integerHeader('Requests allowed in the window that is closest to its limit'),
  'RateLimit-Remaining': integerHeader('Requests left in that window'),
  'RateLimit-Reset': integerHeader('Seconds until that window frees a request'),
  'Retry-After': integerHeader('Seconds to wait before trying again'),
  'WWW-Authenticate': { description: 'The Bearer challenge (RFC 6750), with error="invalid_token" for an unknown or revoked key', schema: { type: 'string' } },
};

const headers = (...names: Array<keyof typeof SHARED_HEADERS>) => Object.fromEntries(names.map((name) => [name, ref('headers', name)]));

/** Headers of an answer that went through the per-key limiter (success or refusal). */
const RATE_LIMIT_HEADERS = headers('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Whether the route reads a body (and so can answer 413 and 415). */
export function takesBody(method: string): boolean {
  return BODY_METHODS.has(method.toUpperCase());
}

/** Whether every request counts against the caller's key (RateLimit-* headers, 429, 503 when the limiter is down). */
export function keyLimited(auth: AuthLevel): boolean {
  return auth !== 'public';
}

/** Whether the operation's answers carry RateLimit-* headers: those of a key, or of a limit per client. */
function rateLimitHeaders(traits: OperationTraits): boolean {
  return keyLimited(traits.auth) || traits.limitedPerClient === true;
}

interface ErrorAnswer {
  status: number;
  description: string;
  example: string;
  headers?: Record<string, unknown>;
}

function errorResponse(error: ErrorAnswer): Record<string, unknown> {
  return {
    description: error.description,
    ...(error.headers ? { headers: error.headers } : {}),
    content: { 'application/json': { schema: ref('schemas', ERROR_SCHEMA_NAME), example: { message: error.example, code: ERROR_CODES[error.status] } } },
  };
}

/** The error answers every operation of a kind shares (components.responses), by name. */
const SHARED_ERRORS = {
  InvalidBody: {
    status: 400,
    description: 'Invalid input: malformed JSON, or a field missing, invalid or unknown (named in the message, listed in issues)',
    example: 'Input validation failed: unknown field "topk"',
  },
  InvalidQuery: {
    status: 400,
    description: 'Invalid input: a parameter missing, invalid or unknown (named in the message, listed in issues)',
    example: 'Input validation failed: unknown field "topk"',
  },
  Unauthorized: {
    status: 401,
    description: 'Missing, malformed, unknown or revoked credentials',
    example: 'Missing credentials: send "Authorization: Bearer <API key>"',
    headers: headers('WWW-Authenticate'),
  },
  Forbidden: { status: 403, description: 'An API key without admin rights, or a publishable key', example: 'This operation needs an admin API key or an admin session' },
  KeyForbidden: {
    status: 403,
    description: "A namespace outside the key's namespaces; a publishable key where it may not be used, or from a page it does not allow",
    example: 'This key may not use the namespace "wiki": it is limited to user_docs',
  },
  PayloadTooLarge: {
    status: 413,
    description: 'The body is larger than the limit (KB_MAX_BODY_BYTES, 10 MB by default)',
    example: 'Request body is larger than the limit of 10485760 bytes',
  },
  UnsupportedMediaType: { status: 415, description: 'The body is not application/json', example: 'Unsupported content type "text/plain": send application/json' },
  RateLimited: {
    status: 429,
    description: "The key's requests per minute or per day are used up (see Retry-After)",
    example: 'Rate limit exceeded: 60 requests per window; retry in 12 s',
    headers: headers('Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'),
  },
  Unavailable: {
    status: 503,
    description:
      "The database or Redis cannot be reached (restarting, failing over), rate limiting is unavailable, or the embedded store's disk is full (writes only); try again after Retry-After",
    example: 'The database cannot be reached; try again shortly',
    headers: headers('Retry-After'),
  },
  InternalError: { status: 500, description: 'Internal server error (the server log has the cause)', example: 'Internal server error' },
} satisfies Record<string, ErrorAnswer>;

/** components.responses of the document: the shared error answers. */
export const SHARED_RESPONSES: Record<string, unknown> = Object.fromEntries(
  Object.entries(SHARED_ERRORS).map(([name, error]) => [name, errorResponse(error)]),
);

/** The errors an operation can answer, by status: the name of a shared answer, or one of its own. */
export function derivedErrors(traits: OperationTraits): Map<number, keyof typeof SHARED_ERRORS | ErrorAnswer> {
  const errors = new Map<number, keyof typeof SHARED_ERRORS | ErrorAnswer>();
  const body = takesBody(traits.method);
  errors.set(400, body ? 'InvalidBody' : 'InvalidQuery');
  if (traits.auth !== 'public' || traits.publishable) errors.set(401, 'Unauthorized');
  if (traits.auth === 'admin') errors.set(403, 'Forbidden');
  else if (traits.auth === 'apiKey' || traits.publishable) errors.set(403, 'KeyForbidden');
  if (body) {
    errors.set(413, 'PayloadTooLarge');
    errors.set(415, 'UnsupportedMediaType');
  }
  if (keyLimited(traits.auth)) errors.set(429, 'RateLimited');
  // Every operation needs the store (and a limited one Redis): any may meet an outage.
  errors.set(503, 'Unavailable');
  errors.set(500, 'InternalError');
  for (const [key, description] of Object.entries(traits.errors)) {
    if (description === undefined) continue;
    const status = Number(key);
    const derived = errors.get(status);
    const shared: ErrorAnswer | undefined = typeof derived === 'string' ? SHARED_ERRORS[derived] : undefined;
    // A 503 the procedure declares comes beside the outages'; any other declared error replaces the shared one.
    const outage = status === 503 && derived === 'Unavailable';
    const answerHeaders = status === 429 ? (rateLimitHeaders(traits) ? SHARED_ERRORS.RateLimited.headers : headers('Retry-After')) : shared?.headers;
    errors.set(status, {
      status,
      description: outage ? `${description}; or the database or Redis cannot be reached, or the store's disk is full (writes)` : description,
      example: description,
      ...(answerHeaders ? { headers: answerHeaders } : {}),
    });
  }
  return errors;
}

type Responses = Record<string, Record<string, unknown>>;

/**
 * The responses of an operation: its success answers as they are (with RateLimit-* headers when
 * the key is limited), and every error in the one error schema, with an example each.
 */
export function operationResponses(existing: Responses, traits: OperationTraits): Responses {
  const responses: Responses = {};
  for (const [status, response] of Object.entries(existing)) {
    if (!status.startsWith('2')) continue;
    responses[status] = rateLimitHeaders(traits) ? { ...response, headers: { ...(response.headers as object | undefined), ...RATE_LIMIT_HEADERS } } : response;
  }
  for (const [status, error] of [...derivedErrors(traits)].sort(([a], [b]) => a - b)) {
    responses[String(status)] = typeof error === 'string' ? ref('responses', error) : errorResponse(error);
  }
  return responses;
}

/**
 * Who may call an operation, in the document's terms: an API key or an admin session, or, for a
 * public one, no credentials (an empty requirement says so explicitly).
 */
export function operationSecurity(auth: AuthLevel): Array<Record<string, string[]>> {
  return auth === 'public' ? [] : [{ Authorization: [] }, { AdminSession: [] }];
}
