import { isAppError } from '@kb/core';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { RequestContext } from './context.ts';
import { responseMeta } from './response-meta.ts';
import { toTRPCError } from './trpc.ts';

export interface InputIssue {
  code?: string;
  path?: Array<string | number>;
  message?: string;
  keys?: string[];
}

/** Issues listed in the message, at most this many (the rest are counted). */
const ISSUES_IN_MESSAGE = 5;

/** Invalid-input issues (zod's) as one line: unknown fields by name, other problems by field path. */
function describeIssues(issues: readonly InputIssue[]): string {
  const parts = issues.slice(0, ISSUES_IN_MESSAGE).map((issue) => {
    const where = (issue.path ?? []).join('.');
    if (issue.code === 'unrecognized_keys' && Array.isArray(issue.keys)) {
      // Names are the caller's: shortened, and a long list cut, so the message stays a line.
      const names = issue.keys.slice(0, 10).map((key) => JSON.stringify(key.slice(0, 100))).join(', ') + (issue.keys.length > 10 ? ', …' : '');
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${names}${where ? ` in "${where}"` : ''}`;
    }
    return where ? `${where}: ${issue.message ?? 'invalid'}` : (issue.message ?? 'invalid');
  });
  const more = issues.length - ISSUES_IN_MESSAGE;
  return parts.join('; ') + (more > 0 ? ` (and ${more} more)` : '');
}

/** The REST message of an invalid-input answer: "Input validation failed: " and its problems. */
export function invalidInputMessage(issues: readonly InputIssue[]): string {
  return `Input validation failed: ${describeIssues(issues)}`;
}

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
  const trpcError =
    error instanceof TRPCError
      ? error
      : isAppError(error)
        ? toTRPCError(error)
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

