export { metrics, NO_METRICS, PrometheusMetrics, secondsSince, useMetrics } from './metrics.ts';
export type { IngestOutcome, Metrics, StoreSnapshot, ProviderOperation, ProviderOutcome, QueueSnapshot, RateLimitName, TokenKind } from './metrics.ts';
export { endSpan, inSpan, startSpan, traceCarrier, tracingEnabled, useTracing, withSpan, withTraceCarrier } from './tracing.ts';
export type { Span } from '@opentelemetry/api';
