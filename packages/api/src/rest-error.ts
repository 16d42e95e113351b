import { isAppError, unavailableError } from '@kb/core';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { RequestContext } from './context.ts';
import { responseMeta } from './response-meta.ts';
import { toTRPCError } from './trpc.ts';
import { invalidInputMessage, type InputIssue } from './input-issues.ts';

export interface RestErrorResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: { message: string; code: string; issues?: unknown[] };
}

/**
 * A failure as the REST adapter answers it, for routes beside the adapter (the chat stream): the
 * one status map, the request's headers (RateLimit-*) and the error's (WWW-Authenticate,
 * Retry-After), and the body `{ message, code, issues? }` (`issues` for invalid input).
 */
export function restErrorResponse(error: unknown, ctx?: RequestContext): RestErrorResponse {
  const appError = isAppError(error) ? error : unavailableError(error);
  const trpcError =
    error instanceof TRPCError
      ? error
      : appError
        ? toTRPCError(appError)
        : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', cause: error });
  const meta = responseMeta({ ...(ctx ? { ctx } : {}), errors: [trpcError] });
  const cause = trpcError.cause;
  const invalidInput = trpcError.code === 'BAD_REQUEST' && cause instanceof Error && cause.name === 'ZodError';
  const issues = invalidInput ? (cause as unknown as { issues: InputIssue[] }).issues : [];
  const message = invalidInput ? invalidInputMessage(issues) : trpcError.code === 'INTERNAL_SERVER_ERROR' ? 'Internal server error' : trpcError.message;
  return {
    status: meta.status ?? getHTTPStatusCodeFromError(trpcError),
    headers: meta.headers ?? {},
    body: { message, code: trpcError.code, ...(invalidInput ? { issues } : {}) },
  };
}

