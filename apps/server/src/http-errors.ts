import { invalidInputMessage, type InputIssue } from '@kb/api';
import type { ServerResponse } from 'node:http';
import { APP_ERROR_STATUS, type AppErrorCode } from '@kb/core';

/** Writes the service's one error body, { message, code, requestId }, for failures outside the procedures. */
export function sendError(
  res: ServerResponse,
  code: AppErrorCode,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(res, { message, code }));
  res.writeHead(APP_ERROR_STATUS[code], {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

/** An error body with the request id the response carries (X-Request-Id), so a report can be matched to its log lines. */
export function errorBody<T extends object>(res: ServerResponse, body: T): T & { requestId?: string } {
  const requestId = res.getHeader('X-Request-Id');
  return typeof requestId === 'string' ? { ...body, requestId } : body;
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * The REST adapter spreads tRPC's error shape into its bodies; this makes an error answer on `res`
 * the REST API's one shape: without tRPC's `data` (the status and code are the response's own),
 * and for invalid input, whose message trpc-to-openapi fixes as "Input validation failed", with a
 * message naming the problems (a caller reads the message first: an unknown field must not pass
 * for a wrong value).
 */
export function restErrorBodies(res: ServerResponse): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    if (res.statusCode >= 400 && typeof args[0] === 'string') args[0] = restErrorText(args[0]);
    return end(...args);
  }) as ServerResponse['end'];
}

function restErrorText(text: string): string {
  let body: { message?: unknown; issues?: unknown; data?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return text;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return text;
  const { data: _data, ...rest } = body;
  if (rest.message === 'Input validation failed' && Array.isArray(rest.issues) && rest.issues.length > 0) {
    return JSON.stringify({ ...rest, message: invalidInputMessage(rest.issues as InputIssue[]) });
  }
  return JSON.stringify(rest);
}
