import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthLevel, RequestContext } from '@kb/api';
import { AppError } from '@kb/core';
import { isJsonMediaType, mediaType, parseJsonObject, readBody } from './body.ts';

/**
 * What a route reads of the request before its handler runs:
 * - `none`: nothing (the handler or the adapter it calls reads what it needs);
 * - `json`: for POST, PUT and PATCH, a JSON object up to the JSON limit (415 for another media
 *   type, 400 for malformed or too deeply nested JSON or another JSON value, 413 over the limit),
 *   parsed into `req.body`;
 * - `raw`: the body's bytes, up to `maxBytes`, in one of `mediaTypes` (415 otherwise, before any is read).
 */
export type RouteBody =
  | 'none'
  | 'json'
  | { raw: { maxBytes: number; mediaTypes: ReadonlySet<string>; refusal(type: string | undefined): string } };

export type KbRequest = IncomingMessage & { body?: unknown };

export interface RouteRequest {
  req: KbRequest;
  res: ServerResponse;
  url: URL;
  /** The request's path, percent-encoded unreserved characters decoded. */
  pathname: string;
  /** A `raw` route's body and its media type. */
  raw?: { body: Buffer; mediaType: string };
  /** An authenticated route's request context (its caller identified and admitted). */
  context?: RequestContext;
}

export interface Route {
  /** Methods the route answers (every method when absent); a route that answers GET answers HEAD. */
  methods?: readonly string[];
  /** The path it answers exactly ... */
  path?: string;
  /** ... and/or every path that starts with this ... */
  prefix?: string;
  /** ... of those, only what this accepts (the REST operations, whose paths take parameters). */
  matches?(method: string, pathname: string): boolean;
  body: RouteBody;
  /**
   * Query parameters the route reads; others are refused before anything else is looked at (400
   * naming them), as unknown body fields are. A body-taking route reads none when this is absent:
   * trpc-to-openapi reads the input of POST, PUT and PATCH from the body alone, so `?topK=2` would
   * be dropped without a word. A function gives them per request (the REST operations declare
   * their own); a route without a body and without this reads what it likes.
   */
  query?: readonly string[] | ((method: string, pathname: string) => readonly string[]);
  /**
   * Who may call it, checked after the body is read, as procedures check it (401, 403, 429 in the
   * service's error body). Absent: the route is public or checks for itself (the tRPC adapters).
   */
  auth?: Exclude<AuthLevel, 'public'>;
  handle(request: RouteRequest): Promise<void> | void;
  /** The route's template for logs and metrics when it answers many paths (`/api/v1/keys/{id}`). */
  template?(method: string, pathname: string): string | undefined;
}

/** What logs and metrics call a request's route: never the raw path, so its values are a closed set. */
export function routeTemplate(route: Route, method: string, pathname: string): string {
  return route.template?.(method, pathname) ?? route.path ?? `${route.prefix ?? ''}*`;
}

/** The first route that answers this method and path: the table's order decides. */
export function findRoute(routes: readonly Route[], method: string, pathname: string): Route | undefined {
  return routes.find(
    (route) =>
      (route.path === pathname || (route.prefix !== undefined && pathname.startsWith(route.prefix))) &&
      (!route.methods || route.methods.includes(method) || (method === 'HEAD' && route.methods.includes('GET'))) &&
      (route.matches === undefined || route.matches(method, pathname)),
  );
}

/** The operations of an OpenAPI document, looked up by method and request path. */
export interface OperationIndex {
  /** Whether there is an operation for this method and path, so that a request for none is a 404 before its body or query string is looked at. */
  matches(method: string, pathname: string): boolean;
  /** The query parameters that operation declares (none for an unknown one). */
  queryParameters(method: string, pathname: string): readonly string[];
  /** That operation's path template, base path included (`/api/v1/keys/{id}`). */
  template(method: string, pathname: string): string | undefined;
}

interface IndexedOperation {
  pattern: RegExp;
  template: string;
  method: string;
  query: readonly string[];
}

/**
 * The operations of an OpenAPI document (`paths` relative to `basePath`, `{name}` matching one
 * path segment; HEAD counts as GET), with the query parameters each declares.
 */
export function operationIndex(paths: Record<string, object>, basePath: string): OperationIndex {
  const operations: IndexedOperation[] = Object.entries(paths).flatMap(([path, item]) => {
    const pattern = new RegExp(`^${escapeRegExp(basePath + path).replace(/\\\{[^/]+?\\\}/g, '[^/]+')}$`);
    const shared = parameterNames((item as { parameters?: unknown }).parameters);
    return Object.entries(item)
      .filter(([key]) => HTTP_METHODS.has(key))
      .map(([method, operation]) => ({
        pattern,
        template: basePath + path,
        method: method.toUpperCase(),
        query: [...new Set([...shared, ...parameterNames((operation as { parameters?: unknown }).parameters)])],
      }));
  });
  const find = (method: string, pathname: string): IndexedOperation | undefined => {
    const wanted = method === 'HEAD' ? 'GET' : method;
    return operations.find((operation) => operation.method === wanted && operation.pattern.test(pathname));
  };
  return {
    matches: (method, pathname) => find(method, pathname) !== undefined,
    queryParameters: (method, pathname) => find(method, pathname)?.query ?? [],
    template: (method, pathname) => find(method, pathname)?.template,
  };
}

/** The names of an OpenAPI parameter list's query parameters. */
function parameterNames(parameters: unknown): string[] {
  if (!Array.isArray(parameters)) return [];
  return parameters.flatMap((parameter: { in?: unknown; name?: unknown }) =>
    parameter.in === 'query' && typeof parameter.name === 'string' ? [parameter.name] : [],
  );
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What serving a route needs of the host. */
export interface RouteHost {
  /** Largest JSON body (`json` routes). */
  maxJsonBytes: number;
  /** The request context of an authenticated route ... */
  context(req: KbRequest): RequestContext;
  /** ... and the access check it goes through. */
  authorize(context: RequestContext, level: Exclude<AuthLevel, 'public'>): Promise<unknown>;
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** The largest body the route takes: its raw limit, else the JSON limit (which /trpc reads too). */
export function bodyLimit(route: Route, host: Pick<RouteHost, 'maxJsonBytes'>): number {
  return typeof route.body === 'object' ? route.body.raw.maxBytes : host.maxJsonBytes;
}

function refuseQueryParameters(url: URL, allowed: readonly string[], takesBody: boolean): void {
  if (url.search === '') return;
  const unknown = [...new Set(url.searchParams.keys())].filter((name) => !allowed.includes(name));
  if (unknown.length === 0) return;
  const names = unknown.slice(0, 10).map((name) => JSON.stringify(name.slice(0, 100))).join(', ') + (unknown.length > 10 ? ', …' : '');
  const takes =
    allowed.length > 0
      ? `it takes only ${allowed.map((name) => `"${name}"`).join(', ')}`
      : takesBody
        ? 'its input goes in the JSON body'
        : 'it takes none';
  throw new AppError('BAD_REQUEST', `Unknown query parameter${unknown.length === 1 ? '' : 's'} ${names}: ${takes}`);
}

/** Reads what the route says of the body, checks access if it says so, then runs its handler. */
export async function serveRoute(route: Route, request: RouteRequest, host: RouteHost): Promise<void> {
  const { req, res } = request;
  const method = req.method ?? 'GET';
  const takesBody = route.body !== 'none' && METHODS_WITH_BODY.has(method);
  const query = typeof route.query === 'function' ? route.query(method, request.pathname) : route.query;
  if (query !== undefined || takesBody) refuseQueryParameters(request.url, query ?? [], takesBody);
  if (route.body === 'json' && takesBody) {
    const type = mediaType(req);
    const body = await readBody(req, host.maxJsonBytes);
    if (body.length > 0 && !isJsonMediaType(type)) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', type ? `Unsupported content type "${type}": send application/json` : 'Missing Content-Type: send application/json');
    }
    req.body = parseJsonObject(body);
    // An adapter checks the header before it looks at the parsed body.
    req.headers['content-type'] = 'application/json';
  } else if (typeof route.body === 'object') {
    const { maxBytes, mediaTypes, refusal } = route.body.raw;
    const type = mediaType(req);
    if (!type || !mediaTypes.has(type)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', refusal(type));
    request.raw = { body: await readBody(req, maxBytes), mediaType: type };
  }
  if (route.auth) {
    const context = host.context(req);
    try {
      await host.authorize(context, route.auth);
    } finally {
      // Rate-limit headers go out with the answer, success or refusal.
      for (const [name, value] of Object.entries(context.responseHeaders)) res.setHeader(name, value);
    }
    request.context = context;
  }
  await route.handle(request);
}
