import type { ServerResponse } from 'node:http';
import { createChatStreamCaller, restErrorResponse, type ChatInput, type RequestContext } from '@kb/api';
import { SseWriter } from './sse.ts';

function sendRestError(res: ServerResponse, ctx: RequestContext, error: unknown): void {
  const { status, headers, body } = restErrorResponse(error, ctx);
  if (status >= 500) ctx.log.error({ err: error }, 'chat request failed');
  else ctx.log.debug({ status, message: body.message }, 'chat request refused');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}

/**
 * POST /api/v1/chat. Thin: access, rate limits, the body and the conversation are checked by the
 * chat procedure (the same middleware as every procedure), whose failures are the ordinary JSON
 * errors; then the prepared answer runs as an event stream (or as one JSON answer with
 * `stream: false`). The response's `close` aborts retrieval and the model call.
 */
export async function handleChatRoute(res: ServerResponse, ctx: RequestContext, body: unknown, options: { pingMs?: number } = {}): Promise<void> {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  let started;
  try {
    started = await createChatStreamCaller(ctx, { signal: controller.signal }).chat(body as ChatInput);
  } catch (error) {
    sendRestError(res, ctx, error);
    return;
  }
  const { prepared } = started;
  if (!started.stream) {
    try {
      const answer = await prepared.collect(controller.signal);
      const text = JSON.stringify(answer);
      res.writeHead(200, { ...ctx.responseHeaders, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
      res.end(text);
    } catch (error) {
      if (!controller.signal.aborted) sendRestError(res, ctx, error);
    }
    return;
  }
  const sse = new SseWriter(res, options.pingMs);
  sse.start(ctx.responseHeaders);
  try {
    for await (const event of prepared.events(controller.signal)) {
      await sse.send(event.type === 'error' ? { type: 'error', message: event.message } : event);
    }
  } catch (error) {
    // The service turns failures into error events; this is the last guard of an open stream.
    if (!controller.signal.aborted) {
      ctx.log.error({ err: error }, 'chat stream failed');
      await sse.send({ type: 'error', message: 'The answer could not be completed; try again' });
    }
  }
  await sse.send('[DONE]');
  sse.end();
}
