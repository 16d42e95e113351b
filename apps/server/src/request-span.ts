import type { IncomingMessage, ServerResponse } from 'node:http';
import { endSpan, startSpan, tracingEnabled, withTraceCarrier, type Span } from '@kb/core';

/**
 * The span of one HTTP request (tracing on): it continues the caller's trace when the request
 * carries a traceparent header, is named by the route template once routing has found it, and
 * ends when the response closes.
 */
export function startRequestSpan(req: IncomingMessage, res: ServerResponse, meta: { requestId: string; path: string; route: string }): Span | undefined {
  if (!tracingEnabled()) return undefined;
  const span = withTraceCarrier(req.headers, () =>
    startSpan(`${req.method ?? 'GET'}`, { 'http.request.method': req.method ?? 'GET', 'url.path': meta.path, 'kb.request_id': meta.requestId }),
  );
  res.once('close', () => {
    const status = res.writableFinished ? res.statusCode : 499;
    span?.updateName(`${req.method ?? 'GET'} ${meta.route}`);
    span?.setAttributes({ 'http.route': meta.route, 'http.response.status_code': status });
    endSpan(span, status >= 500 ? new Error(`HTTP ${status}`) : undefined);
  });
  return span;
}
