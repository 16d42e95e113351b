/**
 * Spans, through the OpenTelemetry API only: the process's entry point installs the SDK (when an
 * OTLP endpoint is set) and turns tracing on here. Off, every helper calls its function straight
 * away: no span objects, no context switches.
 */
import { context, propagation, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

let enabled = false;
/**
 * Looked up when tracing is turned on, after the SDK registered its provider: this module may be
 * a different copy of the API than the SDK's (ES module and CommonJS builds), and only the global
 * registry, not a copy's own proxy, sees the registered provider.
 */
let tracer = trace.getTracer('kb');

/** Turns span creation on (the SDK is installed) or off. */
export function useTracing(on: boolean): void {
  enabled = on;
  if (on) tracer = trace.getTracer('kb');
}

export function tracingEnabled(): boolean {
  return enabled;
}

function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Runs `fn` in a child span of the current one (or simply runs it when tracing is off). */
export async function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!enabled) return fn(undefined);
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span ended by the caller (a stream, a request): undefined when tracing is off. */
export function startSpan(name: string, attributes: Attributes = {}): Span | undefined {
  return enabled ? tracer.startSpan(name, { attributes }) : undefined;
}

/** Ends a span from {@link startSpan}, marking it failed when `error` is given. */
export function endSpan(span: Span | undefined, error?: unknown): void {
  if (!span) return;
  if (error !== undefined) failed(span, error);
  span.end();
}

/** Runs `fn` with `span` as the current span (its children and outgoing calls hang under it). */
export function withSpan<T>(span: Span | undefined, fn: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/** The current trace context as W3C headers (traceparent, tracestate), to travel with a job; undefined when tracing is off. */
export function traceCarrier(): Record<string, string> | undefined {
  if (!enabled) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** Runs `fn` in the trace context a job carried from the request that started it. */
export function withTraceCarrier<T>(carrier: unknown, fn: () => T): T {
  if (!enabled || carrier === null || typeof carrier !== 'object') return fn();
  return context.with(propagation.extract(context.active(), carrier as Record<string, string>), fn);
}
