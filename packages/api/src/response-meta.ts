import { isAppError } from '@kb/core';
import type { TRPCError } from '@trpc/server';
import type { RequestContext } from './context.ts';
import { APP_ERROR_STATUS } from './trpc.ts';

/**
 * Status and headers of a response, for both adapters (REST and tRPC): the success status a
 * procedure asked for, the one error-code map, and headers set by the request (rate limits,
 * cookies) or carried by the error (Retry-After, WWW-Authenticate).
 */
export function responseMeta(opts: { ctx?: RequestContext; errors: TRPCError[] }): {
  status?: number;
  headers?: Record<string, string | string[]>;
} {
  const headers: Record<string, string | string[]> = { ...(opts.ctx?.responseHeaders ?? {}) };
  const error = opts.errors[0];
  if (!error) {
    return { status: opts.ctx?.responseStatus ?? 200, headers };
  }
  const cause = error.cause;
  if (isAppError(cause)) Object.assign(headers, cause.headers);
  // Errors are JSON, those tRPC answers before a procedure runs (a path it cannot decode, a method
  // it does not take) too: it would label them text/plain.
  headers['Content-Type'] = 'application/json';
  const status = (APP_ERROR_STATUS as Record<string, number>)[error.code];
  return status ? { status, headers } : { headers };
}
