import { isIP } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorizeRequest, type PublishableUse, type RequestContext } from '@kb/api';
import type { Config } from '@kb/config';
import { APP_ERROR_STATUS, AppError, isAppError, originAllowed, parseOrigin, sameOrigin, SERVICE_VERSION, type ApiKeysService } from '@kb/core';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isJsonMediaType, jsonShapeProblem, mediaType, readBody } from './body.ts';
import { createKbMcpServer, serverInstructions } from './mcp/server.ts';

export const MCP_PATH = '/mcp';

/** Request headers browser clients send: the key, the protocol's own headers, a request id. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID, X-Request-Id';
/** Response headers browser clients read: the protocol's, the challenge, the limits, the request id. */
const EXPOSED_HEADERS = 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id';
const PREFLIGHT_MAX_AGE_SECONDS = 600;
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

interface JsonRpcMessage {
  id?: string | number | null;
  method?: string;
  params?: { name?: unknown; _meta?: { progressToken?: unknown } };
}

/** A JSON-RPC error answer for failures before the protocol runs (access, transport), with the HTTP status they deserve. */
function sendRpcError(res: ServerResponse, status: number, message: string, options: { id?: string | number | null; code?: number; headers?: Record<string, string | string[]> } = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: options.code ?? -32000, message }, id: options.id ?? null });
  res.writeHead(status, { ...options.headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(body);
}

function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'));
}

/** The host name of a Host header (port and IPv6 brackets kept apart), lower case. */
function hostName(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const match = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(host.trim().toLowerCase());
  return match?.[1];
}

/** The single message of a request, or each of a batch; what the access check needs to know of them. */
function messagesOf(body: unknown): JsonRpcMessage[] {
  const items = Array.isArray(body) ? body : [body];
  return items.filter((item): item is JsonRpcMessage => typeof item === 'object' && item !== null);
}

/**
 * What a publishable key does with this request, for its budgets as on REST: asking is an
 * answer, searching or getting context a question, anything else (listing, reading) a read.
 */
function publishableUse(messages: readonly JsonRpcMessage[]): PublishableUse {
  const tools = messages.filter((m) => m.method === 'tools/call').map((m) => m.params?.name);
  if (tools.includes('ask')) return 'answer';
  if (tools.includes('search') || tools.includes('get_context')) return 'question';
  return 'read';
}

/**
 * The MCP endpoint (Streamable HTTP, stateless): every POST is a whole exchange, answered as JSON,
 * or as an event stream when an `ask` asks for progress. The caller is admitted as on REST (its
 * key, kind, namespaces and rate limits, RateLimit headers included) before the protocol runs;
 * the tools then call the services for it. Host and Origin are checked first (DNS rebinding).
 */
export function createMcpRoute(options: { config: Config; keys: Pick<ApiKeysService, 'publishableOrigins'>; context(req: IncomingMessage): RequestContext }) {
  const { config } = options;

  /** A loopback-bound server answers only loopback names (and those configured): a rebound DNS name reaches it with a foreign Host. */
  function hostAllowed(req: IncomingMessage): boolean {
    const name = hostName(req.headers.host);
    if (name !== undefined && config.mcp.allowedHosts.includes(name)) return true;
    if (config.server.trustProxy || !isLoopbackAddress(req.socket.localAddress)) return true;
    return name !== undefined && LOOPBACK_NAMES.has(name);
  }

  /** Pages that may call: this server's own, local pages of a local server, those configured, and those a publishable key allows. */
  async function originAllowedFor(req: IncomingMessage, origin: string, selfOrigin: string): Promise<boolean> {
    if (parseOrigin(origin) === null) return false;
    if (sameOrigin(origin, selfOrigin)) return true;
    if (config.mcp.allowedOrigins.some((allowed) => sameOrigin(origin, allowed))) return true;
    if (isLoopbackAddress(req.socket.localAddress) && LOOPBACK_NAMES.has(parseOrigin(origin)!.host)) return true;
    const patterns = await options.keys.publishableOrigins().catch((error: unknown) => {
      throw new AppError('SERVICE_UNAVAILABLE', "The service cannot check this page's origin right now; try again shortly", { cause: error });
    });
    return originAllowed(patterns, origin);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, selfOrigin: string): Promise<void> {
    if (!hostAllowed(req)) {
      return sendRpcError(res, 403, `This server does not answer the host name ${JSON.stringify(String(req.headers.host ?? '').slice(0, 200))} (DNS rebinding protection; see KB_MCP_ALLOWED_HOSTS)`);
    }
    const origin = req.headers.origin;
    res.setHeader('Vary', 'Origin');
    if (origin !== undefined) {
      if (!(await originAllowedFor(req, origin, selfOrigin))) {
        return sendRpcError(res, 403, `Pages of ${origin.slice(0, 200)} may not call this server (see KB_MCP_ALLOWED_ORIGINS)`);
      }
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    const method = req.method ?? 'GET';
    if (method === 'OPTIONS') {
      res.writeHead(204, {
        Allow: 'POST, GET, DELETE, OPTIONS',
        ...(origin !== undefined
          ? { 'Access-Control-Allow-Methods': 'POST, GET, DELETE, OPTIONS', 'Access-Control-Allow-Headers': ALLOWED_HEADERS, 'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS) }
          : {}),
      });
      res.end();
      return;
    }
    if (method !== 'POST') {
      // Stateless: no stream to resume (GET) and no session to end (DELETE).
      return sendRpcError(res, 405, 'This server is stateless: send each message in its own POST (no server-sent stream, no session to end)', { headers: { Allow: 'POST, OPTIONS' } });
    }

    const type = mediaType(req);
    if (!isJsonMediaType(type)) {
      req.resume();
      return sendRpcError(res, 415, `Send JSON-RPC messages as application/json${type ? `, not ${type.slice(0, 100)}` : ''}`);
    }
    const raw = (await readBody(req, config.limits.maxBodyBytes)).toString('utf8');
    let body: unknown;
    const problem = jsonShapeProblem(raw);
    try {
      if (problem !== undefined) throw new Error(problem);
      body = JSON.parse(raw);
    } catch (error) {
      return sendRpcError(res, 400, `Parse error: the body is not JSON (${(error as Error).message.slice(0, 200)})`, { code: -32700 });
    }
    const messages = messagesOf(body);
    const single = !Array.isArray(body) && messages[0] ? messages[0] : undefined;

    const ctx = options.context(req);
    try {
      await authorizeRequest(ctx, 'apiKey', publishableUse(messages), { pageOptional: true });
    } catch (error) {
      if (!isAppError(error)) throw error;
      const status = APP_ERROR_STATUS[error.code];
      return sendRpcError(res, status, error.message, { id: single?.id ?? null, headers: { ...ctx.responseHeaders, ...error.headers } });
    }
    for (const [name, value] of Object.entries(ctx.responseHeaders)) res.setHeader(name, value);

    const initializing = messages.some((m) => m.method === 'initialize');
    // Progress needs a stream to travel on; everything else is one JSON answer.
    const streams = messages.some((m) => m.method === 'tools/call' && m.params?.name === 'ask' && m.params._meta?.progressToken !== undefined);
    const server = createKbMcpServer(ctx, {
      version: SERVICE_VERSION,
      ...(initializing ? { instructions: await serverInstructions(ctx, config.mcp.instructions) } : {}),
    });
    // One transport per request: a stateless transport is not reused.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streams });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  return { path: MCP_PATH, handle };
}
