import type { ServerResponse } from 'node:http';
import { APP_ERROR_STATUS, type AppErrorCode } from '@kb/core';

/** Writes the service's one error body, { message, code }, for failures outside the procedures. */
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
  const body = JSON.stringify({ message, code });
  res.writeHead(APP_ERROR_STATUS[code], {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
