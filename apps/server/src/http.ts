import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { API_BASE_PATH, appRouter, authorizeRequest, buildOpenApiDocument, parseCookies, responseMeta, type RequestContext } from '@kb/api';
import { APP_ERROR_STATUS, isAppError, metrics, parseOrigin, requestScope, SERVICE_VERSION, unavailableError, withSpan, type Logger } from '@kb/core';
import { readFromPrimary } from '@kb/db';
import { adminDir as builtAdminDir } from '@kb/admin';
import { widgetFile as builtWidgetFile, widgetVersion } from '@kb/widget';
import { createURL } from '@trpc/server/adapters/node-http';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { createAdminRoutes } from './admin-route.ts';
import { clientAddressResolver, trustedPeerResolver } from './client-address.ts';
import { jsonShapeProblem, readBody, withholdContinue } from './body.ts';
import { handleBackupRoute } from './backup-route.ts';
import { handleChatRoute } from './chat-route.ts';
import { FILE_BODY_TYPES, FILE_QUERY, fileBodyRefusal, handleFileRoute } from './file-route.ts';
import { Cors } from './cors.ts';
import { createDocsRoutes } from './docs-route.ts';
import { createHomeRoutes } from './home-route.ts';
import { createMcpRoute } from './mcp-route.ts';
import { serveMetrics } from './metrics-endpoint.ts';
import { startRequestSpan } from './request-span.ts';
import { restErrorBodies, errorBody, sendError, sendJson } from './http-errors.ts';
import { bodyLimit, findRoute, operationIndex, routeTemplate, serveRoute, type KbRequest as RouteRequestMessage, type Route, type RouteHost } from './routes.ts';
import type { Services } from './services.ts';
import { createWidgetRoutes } from './widget-route.ts';

const requestMeta = Symbol('kb.request');
const OPENAPI_INGEST_PATH = `${API_BASE_PATH}/ingest/openapi`;
const CHAT_PATH = `${API_BASE_PATH}/chat`;
const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];
/** Calls a tRPC batch request may hold (a typed client's httpBatchLink: `maxItems`). */
export const MAX_TRPC_BATCH = 10;
/**
 * The request line and headers together. Node's 16 KB default is too small for the query strings
 * the document allows: a 4,096-character folder of non-Latin text is 49 KB percent-encoded.
 */
export const MAX_HEADER_BYTES = 64 * 1024;
/** How long /readyz waits for each dependency's answer. */
const READINESS_PROBE_TIMEOUT_MS = 2_500;

/**
 * `path` with percent-encoded unreserved characters (letters, digits, "-", ".", "_", "~")
 * decoded: RFC 3986 makes the two spellings the same URI, so `/keys/a%2Db` is `/keys/a-b`.
 * Other escapes stay as they are (a decoded "/" or "?" would change the route).
 */
function decodeUnreserved(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : escape;
  });
}

/**
 * The request's target as a URL, or undefined when it is none (an absolute-form target such as
 * `http://[bad/`): the request line is the client's, and such a request is a 400.
 */
function requestTarget(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

/**
 * Why tRPC's adapter cannot take `req`, or undefined: a method other than its GET (queries) and
 * POST (mutations), or a Host that makes no URL (or no Fetch request). The adapter's own answers to these are no JSON
 * (an odd method) or none at all (it fails making its Fetch request of a TRACE or of `Host: [bad`).
 */
function trpcRequestProblem(req: IncomingMessage): string | undefined {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'POST' && method !== 'HEAD') {
    return `Method ${method.slice(0, 40)} is not supported: tRPC takes GET (queries) and POST (mutations)`;
  }
  try {
    // As the adapter makes it: a Host with a user name (`user:pass@host`) makes a URL, but no Request.
    new Request(createURL(req), { method });
  } catch {
    return `Invalid Host header ${JSON.stringify(String(req.headers.host ?? '').slice(0, 100))}`;
  }
  return undefined;
}

/** An error in tRPC's envelope, for failures found before the tRPC adapter runs. */
function sendTrpcError(res: ServerResponse, code: 'BAD_REQUEST' | 'PAYLOAD_TOO_LARGE', message: string): void {
  const httpStatus = APP_ERROR_STATUS[code];
  const body = JSON.stringify({ error: errorBody(res, { message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus } }) });
  res.writeHead(httpStatus, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** `promise`, or a rejection with `message` when it has not settled within `ms`. */
async function withinTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The client's X-Request-Id when well formed (1-128 of letters, digits, _ . : -), else a new UUID. */
function incomingRequestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
}

interface RequestMeta {
  requestId: string;
  log: Logger;
  ip: string;
  secure: boolean;
  /** This server's own origin (selfOrigin()), if known. */
  selfOrigin: string | undefined;
  /** The path the client asked for (adapters rewrite req.url). */
  path: string;
  /** The route that answered, as a template (`/api/v1/keys/{id}`); logs and metrics use it. */
  route: string;
}

type KbRequest = RouteRequestMessage & { [requestMeta]?: RequestMeta };

export interface HttpApp {
  server: Server;
  /** Marks the process as stopping: /healthz and /readyz answer 503 so balancers drain it. */
  beginShutdown(): void;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * This server's own origin: KB_PUBLIC_URL's when set. Without it, the origin the client named
 * (the scheme it reached us by and its Host, or a trusted proxy's X-Forwarded-Host) only when that
 * names this server whatever DNS says: a loopback name or an address literal. Any other name is
 * the client's to choose (a DNS-rebinding page sends its own), so it makes no origin "own".
 */
function selfOrigin(req: IncomingMessage, secure: boolean, proxied: boolean, publicOrigin: string | undefined): string | undefined {
  if (publicOrigin !== undefined) return publicOrigin;
  const forwarded = proxied ? req.headers['x-forwarded-host'] : undefined;
  const host = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim() || req.headers.host;
  if (!host) return undefined;
  const origin = `${secure ? 'https' : 'http'}://${host}`;
  const parsed = parseOrigin(origin);
  if (parsed === null) return undefined;
  const literal = LOOPBACK_NAMES.has(parsed.host) || parsed.host.startsWith('[') || isIP(parsed.host) === 4;
  return literal ? origin : undefined;
}

function createContext(services: Services, req: KbRequest): RequestContext {
  const meta = req[requestMeta]!;
  let cookies: Map<string, string> | undefined;
  const header = (name: string): string | undefined => {
    const value = req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
  return {
    services,
    requestId: meta.requestId,
    ip: meta.ip,
    secure: meta.secure,
    ...(meta.selfOrigin === undefined ? {} : { selfOrigin: meta.selfOrigin }),
    log: meta.log,
    header,
    cookie(name) {
      cookies ??= parseCookies(header('cookie'));
      return cookies.get(name);
    },
    responseHeaders: {},
    caller: { kind: 'anonymous' },
  };
}

/** Logs a procedure's failure with its request's logger (and so its request id), even when it failed before its context was made. */
function logProcedureError(error: TRPCError, ctx: RequestContext | undefined, req: unknown, fallback: Logger): void {
  const log = ctx?.log ?? (req as KbRequest | undefined)?.[requestMeta]?.log ?? fallback;
  if (error.code === 'INTERNAL_SERVER_ERROR') {
    log.error({ err: error.cause ?? error }, 'request failed');
  } else if (error.code === 'SERVICE_UNAVAILABLE') {
    // The database or Redis out of reach: worth a line in the log, with its cause.
    log.warn({ err: error.cause ?? error, message: error.message }, 'request refused: service unavailable');
  } else {
    log.debug({ code: error.code, message: error.message }, 'request refused');
  }
}

export interface HttpAppOptions {
  /** The admin console's built files; default @kb/admin's dist folder. */
  adminDir?: string;
  /** The assistant's built script; default @kb/widget's. */
  widgetFile?: string;
}

export function createHttpApp(services: Services, options: HttpAppOptions = {}): HttpApp {
  const { config, logger } = services;
  const clientAddress = clientAddressResolver(config.server.trustedProxies);
  const fromTrustedProxy = trustedPeerResolver(config.server.trustedProxies);
  const document = buildOpenApiDocument({ version: SERVICE_VERSION });
  const openApiDocument = JSON.stringify(document);
  const operations = operationIndex(document.paths ?? {}, API_BASE_PATH);
  const docs = createDocsRoutes(API_BASE_PATH);
  const admin = createAdminRoutes({ dir: options.adminDir ?? builtAdminDir, loginEnabled: services.sessions.enabled });
  const cors = new Cors(API_BASE_PATH, services.keys);
  const widget = createWidgetRoutes({ file: options.widgetFile ?? builtWidgetFile, version: widgetVersion });
  const mcp = createMcpRoute({ config, keys: services.keys, context: (req) => createContext(services, req as KbRequest) });
  const home = createHomeRoutes({ version: SERVICE_VERSION, widgetPath: widget.path, widgetScript: () => widget.hashedPath() });
  let shuttingDown = false;

  const rest = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req }) => createContext(services, req as KbRequest),
    responseMeta: (opts) => responseMeta(opts as Parameters<typeof responseMeta>[0]),
    onError: ({ error, ctx, req }) => logProcedureError(error, ctx as RequestContext | undefined, req, logger),
    maxBodySize: config.limits.maxBodyBytes,
  });

  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    createContext: ({ req }) => createContext(services, req as KbRequest),
    responseMeta: (opts) => responseMeta(opts as Parameters<typeof responseMeta>[0]),
    onError: ({ error, ctx, req }) => logProcedureError(error, ctx, req, logger),
    maxBodySize: config.limits.maxBodyBytes,
    // One request, a bounded amount of work: 1,000 batched hybrid searches took 44 s.
    maxBatchSize: MAX_TRPC_BATCH,
  });

  /**
   * tRPC parses its own input (a POST body, or the `input` query parameter of a GET); the input is
   * held to the REST API's limits of shape first (nesting, members), answered in tRPC's own error envelope.
   */
  async function handleTrpc(req: KbRequest, res: ServerResponse, url: URL): Promise<void> {
    const refusal = trpcRequestProblem(req);
    if (refusal !== undefined) {
      req.resume();
      return sendTrpcError(res, 'BAD_REQUEST', refusal);
    }
    let input: string | null = url.searchParams.get('input');
    if (req.method === 'POST') {
      try {
        input = (await readBody(req, config.limits.maxBodyBytes)).toString('utf8');
      } catch (error) {
        if (!isAppError(error) || error.code !== 'PAYLOAD_TOO_LARGE') throw error;
        // Unless the whole body was read, the client is still sending: the connection cannot be reused.
        if (!req.complete) res.setHeader('Connection', 'close');
        sendTrpcError(res, 'PAYLOAD_TOO_LARGE', error.message);
        req.resume();
        return;
      }
      // The adapter takes a body that was already read from here.
      req.body = input;
    }
    const problem = input === null ? undefined : jsonShapeProblem(input);
    if (problem !== undefined) return sendTrpcError(res, 'BAD_REQUEST', `JSON input ${problem}`);
    trpc(req, res);
  }

  /** A request for the REST adapter, its body already read: the path below /api/v1, HEAD as GET. */
  async function forwardToRest(req: KbRequest, res: ServerResponse, pathname: string): Promise<void> {
    // HEAD is GET without the body (the response, made for a HEAD request, sends none).
    if (req.method === 'HEAD') req.method = 'GET';
    req.url = (pathname.slice(API_BASE_PATH.length) || '/') + (req.url?.includes('?') ? req.url.slice(req.url.indexOf('?')) : '');
    restErrorBodies(res);
    await rest(req, res, () => sendError(res, 'NOT_FOUND', `No route ${req.method} ${pathname}`));
  }

  async function readiness(req: KbRequest, res: ServerResponse): Promise<void> {
    if (shuttingDown) return sendJson(res, 503, { status: 'stopping' });
    const probes: Record<string, () => Promise<unknown>> = { database: () => services.database.ping() };
    if (services.redis) probes.redis = () => services.redis!.ping();
    const checks: Record<string, string> = Object.fromEntries(Object.keys(probes).map((name) => [name, 'unreachable']));
    let ready = true;
    // Probes run together, each bounded: a store that accepts connections but does not answer
    // makes the service unready, not the probe unanswered.
    await Promise.all(
      Object.entries(probes).map(async ([name, probe]) => {
        try {
          await withinTimeout(probe(), READINESS_PROBE_TIMEOUT_MS, `no answer within ${READINESS_PROBE_TIMEOUT_MS} ms`);
          checks[name] = 'ok';
        } catch (error) {
          ready = false;
          checks[name] = 'unreachable';
          req[requestMeta]!.log.warn({ err: error }, `readiness: ${name} unreachable`);
        }
      }),
    );
    // Replicas out of rotation do not make the service unready: reads go to the others or the primary.
    const replicas = services.database.replicaStatus();
    const rotation = replicas.length > 0 ? { replicas: { inRotation: replicas.filter((r) => r.state === 'up').length, total: replicas.length } } : {};
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable', checks, ...rotation });
  }

  /**
   * Every route the server answers, first match wins; anything else is a JSON 404. The REST API's
   * operations come from the router through its adapter: a route of its own is only for what the
   * adapter cannot do (a raw body, a stream).
   */
  const routes: Route[] = [
    {
      methods: ['GET'],
      path: '/healthz',
      body: 'none',
      handle: ({ res }) =>
        shuttingDown ? sendJson(res, 503, { status: 'stopping' }) : sendJson(res, 200, { status: 'ok', version: SERVICE_VERSION }),
    },
    { methods: ['GET'], path: '/readyz', body: 'none', handle: ({ req, res }) => readiness(req, res) },
    {
      methods: ['GET'],
      path: `${API_BASE_PATH}/openapi.json`,
      body: 'none',
      handle: ({ req, res }) => {
        res.writeHead(200, {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(openApiDocument),
          'Cache-Control': 'public, max-age=300',
        });
        res.end(req.method === 'HEAD' ? undefined : openApiDocument);
      },
    },
    // The API reference, rendered in the browser from the document above.
    { methods: ['GET'], path: docs.path, body: 'none', handle: ({ req, res, pathname }) => docs.handle(req, res, pathname) },
    { methods: ['GET'], prefix: docs.prefix, body: 'none', handle: ({ req, res, pathname }) => docs.handle(req, res, pathname) },
    // What this server is, and how to embed the assistant (with a live preview given a publishable key).
    { methods: ['GET'], path: '/', body: 'none', query: ['key'], handle: ({ req, res, url }) => home.handle(req, res, url, (req as KbRequest)[requestMeta]!.secure) },
    { methods: ['GET'], path: home.cssPath, body: 'none', handle: ({ req, res }) => home.handleCss(req, res) },
    // The embeddable assistant's script.
    { methods: ['GET'], prefix: widget.prefix, body: 'none', handle: ({ req, res, pathname }) => widget.handle(req, res, pathname) },
    // The admin console: a single-page app on the API, signed in with the admin session.
    { methods: ['GET'], path: admin.path, body: 'none', handle: ({ req, res, pathname }) => admin.handle(req, res, pathname) },
    { methods: ['GET'], prefix: admin.prefix, body: 'none', handle: ({ req, res, pathname }) => admin.handle(req, res, pathname) },
    {
      // The body is the raw spec, in JSON or YAML, up to its own (larger) limit; the procedure
      // gets { spec, format, namespace } (namespace from the query string).
      methods: ['POST'],
      path: OPENAPI_INGEST_PATH,
      query: ['namespace'],
      body: {
        raw: {
          maxBytes: config.limits.maxSpecBytes,
          mediaTypes: new Set(['application/json', ...YAML_TYPES]),
          refusal: (type) => `Send the spec as application/json or application/yaml${type ? `, not ${type}` : ''}`,
        },
      },
      handle: ({ req, res, url, pathname, raw }) => {
        const namespace = url.searchParams.get('namespace');
        const format = raw!.mediaType === 'application/json' ? 'json' : 'yaml';
        req.body = { spec: raw!.body.toString('utf8'), format, ...(namespace === null ? {} : { namespace }) };
        req.headers['content-type'] = 'application/json';
        return forwardToRest(req, res, pathname);
      },
    },
    {
      // A file upload: a multipart form or the file as the body, up to its own limit (see file-route.ts).
      methods: ['POST'],
      path: `${API_BASE_PATH}/ingest/file`,
      query: FILE_QUERY,
      body: { raw: { maxBytes: config.limits.maxFileBytes, mediaTypes: FILE_BODY_TYPES, refusal: fileBodyRefusal } },
      handle: ({ req, res, url, raw }) =>
        handleFileRoute(res, createContext(services, req), {
          url,
          body: raw!.body,
          mediaType: raw!.mediaType,
          contentType: req.headers['content-type'] ?? raw!.mediaType,
          disposition: req.headers['content-disposition'],
        }),
    },
    {
      // The chat stream is the one API operation beside the REST adapter (it cannot stream events);
      // its checks run in the chat procedure, through the same middleware as every procedure.
      methods: ['POST'],
      path: CHAT_PATH,
      body: 'json',
      handle: ({ req, res }) => handleChatRoute(res, createContext(services, req), req.body),
    },
    {
      // The whole store as a backup file, streamed (see backup-route.ts): admin only.
      methods: ['GET'],
      path: `${API_BASE_PATH}/admin/backup`,
      query: [],
      body: 'none',
      auth: 'admin',
      handle: ({ req, res, context }) => handleBackupRoute(res, services, context!, req.method === 'HEAD'),
    },
    {
      // Query parameters are held to those the operation declares before the adapter reads them.
      prefix: `${API_BASE_PATH}/`,
      matches: operations.matches,
      query: operations.queryParameters,
      template: operations.template,
      body: 'json',
      handle: ({ req, res, pathname }) => forwardToRest(req, res, pathname),
    },
    { prefix: '/trpc/', body: 'none', handle: ({ req, res, url }) => handleTrpc(req, res, url) },
    // The MCP endpoint for agents (docs/mcp.md): Host, Origin and access checked by the route itself.
    { path: mcp.path, body: 'none', handle: ({ req, res }) => mcp.handle(req, res, (req as KbRequest)[requestMeta]!.selfOrigin) },
  ];
  // Prometheus metrics on this port, behind their token, unless they have a port of their own.
  const processMetrics = services.metrics;
  if (processMetrics && config.telemetry.metrics.port === undefined) {
    routes.unshift({ methods: ['GET'], path: '/metrics', body: 'none', handle: ({ req, res }) => serveMetrics(req, res, processMetrics, config.telemetry.metrics.token) });
  }

  const routeHost: RouteHost = {
    maxJsonBytes: config.limits.maxBodyBytes,
    context: (req) => createContext(services, req),
    authorize: authorizeRequest,
  };

  async function handle(req: KbRequest, res: ServerResponse): Promise<void> {
    const url = requestTarget(req);
    if (!url) return sendError(res, 'BAD_REQUEST', `Malformed request target ${JSON.stringify((req.url ?? '').slice(0, 100))}`);
    const pathname = decodeUnreserved(url.pathname);
    // The operations pages call answer browsers (CORS) before anything else, refusals included.
    const browserPath = pathname.startsWith(API_BASE_PATH) ? cors.match(pathname) : undefined;
    if (browserPath) {
      const origin = req.headers.origin;
      const self = req[requestMeta]!.selfOrigin;
      if (req.method === 'OPTIONS') {
        req[requestMeta]!.route = 'preflight';
        return cors.preflight(res, browserPath, origin, self);
      }
      res.setHeader('Vary', 'Origin');
      if (origin !== undefined && (await cors.allows(browserPath, origin, self))) Cors.allow(res, origin);
    }
    const route = findRoute(routes, req.method ?? 'GET', pathname);
    if (!route) return sendError(res, 'NOT_FOUND', `No route ${req.method} ${pathname}`);
    // Read-your-write: a client that must see what it has just written pins the request's reads to
    // the primary (docs/deployment.md, "Read replicas").
    const readFrom = req.headers['kb-read-from'];
    if (readFrom !== undefined && readFrom !== 'primary' && readFrom !== 'any') {
      return sendError(res, 'BAD_REQUEST', 'KB-Read-From must be "primary" or "any"');
    }
    req[requestMeta]!.route = routeTemplate(route, req.method ?? 'GET', pathname);
    const serve = () => serveRoute(route, { req, res, url, pathname }, routeHost);
    await (readFrom === 'primary' ? readFromPrimary(serve) : serve());
  }

  /** Answers a request whose handling failed: an AppError as itself, anything else as a logged 500. */
  function answerFailure(req: KbRequest, res: ServerResponse, log: Logger, failure: unknown): void {
    if (req.destroyed && !req.complete) {
      // The client closed the connection before its request was read: nobody to answer, and its
      // reset is the client's, not the database's.
      log.info({ method: req.method, path: req[requestMeta]?.path, route: req[requestMeta]?.route }, 'client closed the connection before sending its whole request');
      res.destroy();
      return;
    }
    // The database or Redis out of reach (or the disk full) is a 503 saying so, not a fault.
    const unavailable = unavailableError(failure);
    if (unavailable) log.warn({ err: failure }, unavailable.message);
    const error = unavailable ?? failure;
    if (isAppError(error)) {
      if (error.code === 'PAYLOAD_TOO_LARGE' && !req.complete) res.setHeader('Connection', 'close');
      sendError(res, error.code, error.message, error.headers);
      if (error.code === 'PAYLOAD_TOO_LARGE') req.resume();
      return;
    }
    log.error({ err: error }, 'unhandled request failure');
    sendError(res, 'INTERNAL_SERVER_ERROR', 'Internal server error');
  }

  // Node's own answer to an HTTP/1.1 request without Host is a bare 400: the handler answers it in JSON.
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false }, (req: KbRequest, res) => {
    const started = process.hrtime.bigint();
    const requestId = incomingRequestId(req);
    const log = logger.child({ reqId: requestId });
    res.setHeader('X-Request-Id', requestId);
    // No response is for a browser to second-guess: JSON, pages and files are what they say they are.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // An error on either stream (a reset mid-body, a write after a failure) is the connection's
    // end, not the process's: an 'error' event without a listener would throw.
    req.on('error', (error) => log.debug({ err: error }, 'request stream error'));
    res.on('error', (error) => log.debug({ err: error }, 'response stream error'));
    // Everything the request sets going (timers, stream callbacks) runs in its scope: a throw that
    // escapes all of it reaches the last-resort handlers with its request id (last-resort.ts).
    const fail = () => {
      if (res.headersSent) res.destroy();
      else sendError(res, 'INTERNAL_SERVER_ERROR', 'Internal server error');
    };
    requestScope.run({ requestId, log, fail }, () => {
      try {
        serveRequest(req, res, log, started);
      } catch (failure) {
        answerFailure(req, res, log, failure);
      }
    });
  });

  function serveRequest(req: KbRequest, res: ServerResponse, log: Logger, started: bigint): void {
    const proxied = fromTrustedProxy(req);
    const secure = (req.socket as { encrypted?: boolean }).encrypted === true || (proxied && req.headers['x-forwarded-proto'] === 'https');
    const meta: RequestMeta = {
      requestId: res.getHeader('X-Request-Id') as string,
      log,
      ip: clientAddress(req),
      secure,
      selfOrigin: selfOrigin(req, secure, proxied, config.server.publicOrigin),
      path: (req.url ?? '/').split('?')[0]!,
      route: 'unmatched',
    };
    req[requestMeta] = meta;
    if (metrics.enabled) {
      metrics.httpInFlight(1);
      res.once('close', () => {
        metrics.httpInFlight(-1);
        // A response the client left before its end (a chat stream it stopped reading) counts as 499, as nginx logs it.
        metrics.httpRequest(meta.route, req.method ?? 'GET', res.writableFinished ? res.statusCode : 499, Number(process.hrtime.bigint() - started) / 1e9);
      });
    }
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info({ method: req.method, path: meta.path, route: meta.route, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      // RFC 9112, section 3.2: a server answers an HTTP/1.1 request without Host with a 400.
      req.resume();
      return sendError(res, 'BAD_REQUEST', 'An HTTP/1.1 request must carry a Host header');
    }
    const span = startRequestSpan(req, res, meta);
    withSpan(span, () => handle(req, res)).catch((failure: unknown) => answerFailure(req, res, log, failure));
  }

  // A client that asks before sending its body is told to go on only if the body is within the
  // route's limit; otherwise its request is answered (413) without the body ever being sent.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers['content-length']);
    const target = requestTarget(req);
    // A target that is no URL gets its 400 from the request handler, its body never asked for.
    const route = target && findRoute(routes, req.method ?? 'GET', decodeUnreserved(target.pathname));
    if (!target || (route && Number.isFinite(declared) && declared > bodyLimit(route, routeHost))) {
      withholdContinue(req);
      // The connection holds a body that will not come: it cannot carry another request.
      res.setHeader('Connection', 'close');
    } else {
      res.writeContinue();
    }
    server.emit('request', req, res);
  });

  // An Expect header other than 100-continue: Node would answer an empty 417. It is a bad request
  // like any other (RFC 9110 allows, not requires, 417), in the one error body and status map.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('X-Request-Id', incomingRequestId(req));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Connection', 'close');
    sendError(res, 'BAD_REQUEST', `Unsupported Expect header ${JSON.stringify(String(req.headers.expect).slice(0, 100))}: only 100-continue is supported`);
  });

  /** A 400 written on the socket itself, for requests Node answers no request handler for; the connection is closed. */
  function rawBadRequest(socket: Socket, message: string, details: Record<string, unknown>): void {
    const requestId = randomUUID();
    logger.child({ reqId: requestId }).info({ ...details, status: 400 }, `refused: ${message}`);
    const body = JSON.stringify({ message, code: 'BAD_REQUEST', requestId });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  // Malformed HTTP never reaches the handler: answer it in the same JSON shape.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    // Headers over Node's limit are a bad request too (as nginx answers them): 400, the status the
    // document declares for every operation, rather than a 431 it does not.
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    rawBadRequest(socket, tooLarge ? `Request headers too large: at most ${MAX_HEADER_BYTES} bytes` : 'Malformed HTTP request', { reason: error.code ?? error.message });
  });

  // CONNECT asks for a tunnel, which this server (no proxy) never opens; Node would drop the connection unanswered.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    rawBadRequest(socket, 'CONNECT is not supported: this server is not a proxy', { method: req.method, path: (req.url ?? '').slice(0, 200) });
  });

  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 120_000;

  return {
    server,
    beginShutdown() {
      shuttingDown = true;
    },
  };
}
