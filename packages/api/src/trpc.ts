import { illFormedTextPath } from '@kb/content';
import {
  APP_ERROR_STATUS,
  AppError,
  isAppError,
  keyPrincipal,
  metrics,
  RateLimiterUnavailableError,
  rateLimitHeaders,
  requestScope,
  SESSION_COOKIE,
  SESSION_PRINCIPAL,
  type AuthenticatedKey,
  type Principal,
  unavailableError,
} from '@kb/core';
import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { pageOrigin, type AuthLevel, type Caller, type RequestContext } from './context.ts';
import { boundIssues, invalidInputMessage } from './input-issues.ts';
import type { DeclaredErrorStatus } from './openapi-responses.ts';

/**
 * What a publishable key may do with a procedure: `read` (not counted per visitor), `question`
 * (counted against the visitor's questions), `answer` (and against the key's daily answers),
 * `document` (a document read, counted against the visitor's questions as a search is),
 * `visitor` (the bot check itself, which needs no visitor token).
 */
export type PublishableUse = 'read' | 'question' | 'answer' | 'document' | 'visitor';

export interface Meta extends OpenApiMeta {
  /** Who may call the procedure. Absent means admin: access is denied by default. */
  auth?: AuthLevel;
  /**
   * Open to publishable keys, and so to web pages: absent, a publishable key gets a 403. Browsers
   * are answered (CORS) for the origins publishable keys allow. A public procedure that says so
   * applies the key's rules when a key is sent.
   */
  publishable?: PublishableUse;
  /** Answered to pages of any origin (CORS): what a page learns here is no more than that it may not ask. */
  anyOrigin?: boolean;
  /** Success status when not 200 (201 Created, 202 Accepted); also written into the OpenAPI document. */
  successStatus?: 201 | 202;
  /**
   * The REST route of a procedure that the server publishes with a route of its own beside the
   * REST adapter (the chat stream), path below /api/v1; `openapi` is absent on such a procedure.
   */
  restRoute?: { method: 'POST'; path: string };
  /**
   * Errors the procedure answers itself (status -> when), for the OpenAPI document. Those its
   * access (401, 403, 429), input (400) and body (413, 415) imply are added without being listed.
   */
  errors?: Partial<Record<DeclaredErrorStatus, string>>;
  /** A public procedure limited per client address: its answers carry RateLimit-* headers (OpenAPI document). */
  limitedPerClient?: boolean;
  /** A request and its answer for the OpenAPI document; a test checks both against the schemas. */
  example?: { input?: Record<string, unknown>; output: unknown };
}

/**
 * Procedures callable without credentials. A procedure whose meta says `auth: 'public'`
 * but is not listed here is refused, so a forgotten or mistyped meta never opens a route.
 */
export const PUBLIC_PROCEDURES: ReadonlySet<string> = new Set([
  'auth.login',
  'auth.logout',
  // The public FAQ (specification section 5): limited per client address and per day instead.
  'faq.get',
  // What a page's publishable key may do: checked against the key named in it, for the page's origin.
  'assistant.config',
]);

const t = initTRPC
  .context<RequestContext>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      // One body everywhere: { message, code, requestId } (REST adds `issues` for invalid input).
      // Internal failures never describe themselves to the caller; the log has the cause, found by the request id.
      const message = error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal server error' : shape.message;
      // `data` is tRPC's own: its clients read the code from it, and its adapters the status (the
      // node adapter's last error path reads `data.httpStatus` and throws without it). The status
      // is the one map's; REST bodies leave `data` out (http-errors.ts).
      const data = { code: error.code, httpStatus: (APP_ERROR_STATUS as Record<string, number>)[error.code] ?? shape.data.httpStatus };
      // Before its context exists (an adapter's own refusal) the request is still known by its scope.
      const requestId = ctx?.requestId ?? requestScope.getStore()?.requestId;
      return { message, code: shape.code, data, ...(requestId ? { requestId } : {}) };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export function toTRPCError(error: AppError): TRPCError {
  return new TRPCError({ code: error.code, message: error.message, cause: error });
}

/**
 * Invalid input as every answer reports it: the issues bounded (a million unknown fields or a
 * ten-megabyte value must not come back whole) and the message naming them, over REST and tRPC alike.
 */
function invalidInput(cause: ZodError): TRPCError {
  const issues = boundIssues(cause.issues);
  const message = invalidInputMessage(issues, cause.issues.length);
  return new TRPCError({ code: 'BAD_REQUEST', message, cause: new BoundedZodError(message, issues) });
}

/** The bounded issues in the shape the REST adapter reports: an Error named ZodError with `issues`. */
class BoundedZodError extends Error {
  constructor(
    message: string,
    readonly issues: readonly unknown[],
  ) {
    super(message);
    this.name = 'ZodError';
  }
}

/** Domain errors keep their code (and so their status) on the way out; invalid input is reported bounded. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (result.error.code === 'BAD_REQUEST' && cause instanceof ZodError) return { ...result, error: invalidInput(cause) };
    if (isAppError(cause)) return { ...result, error: toTRPCError(cause) };
    const unavailable = unavailableError(cause);
    if (unavailable) return { ...result, error: toTRPCError(unavailable) };
    if (cause instanceof RateLimiterUnavailableError) {
      return {
        ...result,
        error: toTRPCError(new AppError('SERVICE_UNAVAILABLE', 'Rate limiting is unavailable; try again shortly', { cause, headers: { 'Retry-After': '5' } })),
      };
    }
  }
  return result;
});

function unauthorized(message: string, invalidToken = true): AppError {
  // RFC 6750: a request without credentials gets the bare challenge, a bad token an error code.
  return new AppError('UNAUTHORIZED', message, {
    headers: { 'WWW-Authenticate': invalidToken ? 'Bearer realm="kb", error="invalid_token"' : 'Bearer realm="kb"' },
  });
}

async function identify(ctx: RequestContext): Promise<Caller> {
  const authorization = ctx.header('authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthorized('The Authorization header must be "Bearer <API key>"');
    const key = await ctx.services.keys.authenticate(match[1]!);
    if (!key) throw unauthorized('Unknown or revoked API key');
    return { kind: 'key', key };
  }
  const token = ctx.cookie(SESSION_COOKIE);
  if (token !== undefined && (await ctx.services.sessions.verify(token))) {
    return { kind: 'session', token };
  }
  return { kind: 'anonymous' };
}

/** Who a request acts for, as the services take it (an anonymous caller of a public procedure reads everything public). */
export function principalOf(ctx: RequestContext): Principal {
  const caller = ctx.caller;
  if (caller.kind === 'key') return keyPrincipal(caller.key);
  if (caller.kind === 'session') return SESSION_PRINCIPAL;
  return { keyId: null, kind: 'anonymous', admin: false, namespaces: null };
}

/**
 * A publishable key's own rules, before its request is counted: only the procedures open to such
 * keys, only from the pages it allows, and with a bot check configured, only with a visitor token.
 */
async function admitPublishable(ctx: RequestContext, key: AuthenticatedKey, use: PublishableUse | undefined, pageOptional: boolean): Promise<void> {
  if (use === undefined) {
    throw new AppError(
      'FORBIDDEN',
      'This operation is not open to publishable keys (kb_pub_…): they may chat, search, get context, read documents, the FAQ and their conversations, and send feedback. Use a secret key.',
    );
  }
  const { assistant } = ctx.services;
  const origin = pageOrigin(ctx);
  if (!(pageOptional && origin === undefined)) assistant.checkPage(key, origin, ctx.selfOrigin);
  if (use !== 'visitor') await assistant.checkVisitor(key, ctx.header('x-kb-visitor'), ctx.ip);
}

/** A publishable key's budgets: the visitor's questions, and for an answer the key's daily answers. */
async function enforceBudgets(ctx: RequestContext, key: AuthenticatedKey, use: PublishableUse | undefined): Promise<void> {
  if (use !== 'question' && use !== 'answer' && use !== 'document') return;
  const { limits } = ctx.services.assistant;
  try {
    const decision = await limits.question(key, ctx.ip);
    Object.assign(ctx.responseHeaders, rateLimitHeaders(decision));
  } catch (error) {
    if (isAppError(error)) Object.assign(ctx.responseHeaders, error.headers);
    throw error;
  }
  if (use === 'answer') await limits.answer(key);
}

async function enforceRateLimit(ctx: RequestContext, caller: Extract<Caller, { kind: 'key' }>): Promise<void> {
  const { key } = caller;
  ctx.services.usage.record(key.id);
  const decision = await ctx.services.rateLimiter.hit(`key:${key.id}`, [
    { windowSeconds: 60, limit: key.rateLimitRpm },
    { windowSeconds: 86_400, limit: key.rateLimitRpd },
  ]);
  Object.assign(ctx.responseHeaders, rateLimitHeaders(decision));
  if (!decision.allowed) {
    metrics.rateLimited(decision.windowSeconds === 60 ? 'per-minute' : 'per-day');
    throw new AppError('TOO_MANY_REQUESTS', `Rate limit exceeded: ${decision.limit} requests per window; retry in ${decision.retryAfterSeconds} s`, {
      headers: { 'Retry-After': String(decision.retryAfterSeconds ?? 1) },
    });
  }
}

export interface AuthorizeOptions {
  /**
   * A publishable key may be used outside a web page (no Origin: an agent's MCP client, which no
   * page can be); a request that names an Origin is still held to the key's pages.
   */
  pageOptional?: boolean;
  /**
   * Whether the request is counted now (default). A request that carries several calls (an MCP
   * batch) is admitted uncounted, and each call is then counted with chargeRequest.
   */
  charge?: boolean;
}

/**
 * Counts one call of an admitted caller against every limit that applies to it: a key's rate
 * limits, and for a publishable key its visitor's questions and its daily answers, as `use` says.
 * Throws the 429 AppError (RateLimit headers and Retry-After included) when one is spent.
 */
export async function chargeRequest(ctx: RequestContext, use: PublishableUse | undefined): Promise<void> {
  const caller = ctx.caller;
  if (caller.kind !== 'key') return;
  await enforceRateLimit(ctx, caller);
  if (caller.key.kind === 'publishable') await enforceBudgets(ctx, caller.key, use);
}

/**
 * The access check of every procedure and of the HTTP routes beside the router: identifies the
 * caller (API key or admin session), counts and limits a key's requests (headers go to
 * `ctx.responseHeaders`), and refuses whom `level` does not admit. Throws AppErrors (401, 403, 429).
 */
export async function authorizeRequest(
  ctx: RequestContext,
  level: Exclude<AuthLevel, 'public'>,
  publishable?: PublishableUse,
  options: AuthorizeOptions = {},
): Promise<Exclude<Caller, { kind: 'anonymous' }>> {
  const caller = await identify(ctx);
  if (caller.kind === 'anonymous') throw unauthorized('Missing credentials: send "Authorization: Bearer <API key>"', false);
  if (caller.kind === 'key') {
    ctx.log = ctx.log.child({ keyId: caller.key.id });
    if (caller.key.kind === 'publishable') await admitPublishable(ctx, caller.key, publishable, options.pageOptional === true);
    if (options.charge !== false) {
      await enforceRateLimit(ctx, caller);
      if (caller.key.kind === 'publishable') await enforceBudgets(ctx, caller.key, publishable);
    }
    if (level === 'admin' && !caller.key.admin) {
      throw new AppError('FORBIDDEN', 'This operation needs an admin API key or an admin session');
    }
  }
  ctx.caller = caller;
  return caller;
}

const authorize = t.middleware(async ({ ctx, meta, path, next }) => {
  if (meta?.successStatus) ctx.responseStatus = meta.successStatus;
  const level: AuthLevel = meta?.auth ?? 'admin';
  if (level === 'public') {
    if (!PUBLIC_PROCEDURES.has(path)) {
      ctx.log.error({ path }, 'procedure marked public but not on the public allow-list; refusing');
      throw new AppError('FORBIDDEN', 'This operation is not available');
    }
    // A key sent to a public procedure open to pages is held to its rules (scope, origins, budgets).
    if (meta?.publishable && ctx.header('authorization') !== undefined) {
      return next({ ctx: { caller: await authorizeRequest(ctx, 'apiKey', meta.publishable) } });
    }
    return next();
  }
  const caller = await authorizeRequest(ctx, level, meta?.publishable);
  return next({ ctx: { caller } });
});

/** Input text the store could not hold is refused up front, naming the field. */
const wellFormedInput = t.middleware(async ({ getRawInput, next }) => {
  const path = illFormedTextPath(await getRawInput());
  if (path !== undefined) {
    throw new AppError(
      'BAD_REQUEST',
      `${path === '' ? 'The input' : `"${path}"`} contains a NUL character or an unpaired surrogate, which text cannot hold`,
    );
  }
  return next();
});

/**
 * Every procedure starts here: errors mapped, access checked per its meta, then the input's text
 * checked (its shape is checked by the procedure's own schema).
 */
export const procedure = t.procedure.use(mapErrors).use(authorize).use(wellFormedInput);

export { APP_ERROR_STATUS };
