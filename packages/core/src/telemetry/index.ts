export { metrics, NO_METRICS, PrometheusMetrics, secondsSince, useMetrics } from './metrics.ts';
export type { IngestOutcome, Metrics, StoreSnapshot, ProviderOperation, ProviderOutcome, QueueSnapshot, RateLimitName, TokenKind } from './metrics.ts';
