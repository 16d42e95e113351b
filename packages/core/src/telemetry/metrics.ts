/**
 * The service's metrics: one recorder per process, a no-op unless KB_METRICS is on. Code that
 * does the work calls `metrics.<event>(...)`; only this module knows Prometheus. Every label value
 * comes from a closed set (route templates, modes, outcomes, providers): never a key, a query, an
 * id or a raw path, so the number of series stays bounded whatever clients send.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type ProviderOperation = 'embed' | 'rerank' | 'answer' | 'rewrite' | 'faq';
export type ProviderOutcome = 'ok' | 'error' | 'aborted';
export type TokenKind = 'input' | 'output' | 'cache_read' | 'cache_write';
export type IngestOutcome = 'created' | 'updated' | 'skipped' | 'failed';
export type JobOutcomeLabel = 'done' | 'failed' | 'retry' | 'handed-back' | 'ignored';
/** Which limit refused: a key's per-minute or per-day limit, the public FAQ's (requests, new topics, model FAQs a day), a visitor's questions, a publishable key's daily answers. */
export type RateLimitName = 'per-minute' | 'per-day' | 'faq' | 'faq-miss' | 'faq-daily' | 'visitor' | 'answers';

/** What a queue tells a scrape: entries by state and the age of the oldest waiting one. */
export interface QueueSnapshot {
  waiting: number;
  delayed: number;
  active: number;
  /** Milliseconds the oldest waiting entry has waited; null when none waits. */
  oldestWaitingMs: number | null;
}

/** What the store tells a scrape: its connection pools (PostgreSQL), its vacuum runs (embedded). */
export interface StoreSnapshot {
  pool?: { total: number; idle: number; waiting: number };
  vacuumRuns?: number;
}

/** Events the service reports. Every method is cheap and never throws. */
export interface Metrics {
  readonly enabled: boolean;
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  httpInFlight(delta: 1 | -1): void;
  sseStream(delta: 1 | -1): void;
  chatMeta(answerer: string, seconds: number): void;
  chatFirstChunk(answerer: string, seconds: number): void;
  chatAnswer(answerer: string, retrieval: string): void;
  chatAborted(answerer: string): void;
  search(mode: string, seconds: number, results: number): void;
  /** A context call (passages for a caller's own model): its time and how many passages it gave. */
  context(seconds: number, passages: number): void;
  providerCall(provider: string, operation: ProviderOperation, outcome: ProviderOutcome, seconds: number): void;
  providerTokens(provider: string, operation: ProviderOperation, kind: TokenKind, count: number): void;
  providerRetry(provider: string, operation: ProviderOperation): void;
  ingested(method: string, outcome: IngestOutcome, chunks: number): void;
  jobFinished(type: string, outcome: JobOutcomeLabel): void;
  rateLimited(limit: RateLimitName): void;
  faqCache(result: 'hit' | 'miss'): void;
  faqGeneration(outcome: 'ok' | 'error'): void;
  faqJoin(): void;
  /** Reads a queue at each scrape. */
  observeQueue(queue: 'bullmq' | 'in-process', snapshot: () => Promise<QueueSnapshot> | QueueSnapshot): void;
  /** Reads the jobs table's counts by status at each scrape. */
  observeJobs(counts: () => Promise<Record<string, number>>): void;
  /** Reads the store's pool and vacuum figures at each scrape. */
  observeStore(snapshot: () => StoreSnapshot | undefined): void;
}

const noop = (): void => undefined;

/** Metrics off: every call returns at once. */
export const NO_METRICS: Metrics = {
  enabled: false,
  httpRequest: noop,
  httpInFlight: noop,
  sseStream: noop,
  chatMeta: noop,
  chatFirstChunk: noop,
  chatAnswer: noop,
  chatAborted: noop,
  search: noop,
  context: noop,
  providerCall: noop,
  providerTokens: noop,
  providerRetry: noop,
  ingested: noop,
  jobFinished: noop,
  rateLimited: noop,
  faqCache: noop,
  faqGeneration: noop,
  faqJoin: noop,
  observeQueue: noop,
  observeJobs: noop,
  observeStore: noop,
};

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Seconds: from a cached answer (milliseconds) to a slow model call. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_STATES = ['pending', 'running', 'done', 'failed'] as const;

/** Metrics on: a prom-client registry with the process's default metrics and the service's own. */
export class PrometheusMetrics implements Metrics {
  readonly enabled = true;
  readonly registry = new Registry();
  private readonly queues = new Map<string, () => Promise<QueueSnapshot> | QueueSnapshot>();
  private jobCounts: (() => Promise<Record<string, number>>) | undefined;
  private store: (() => StoreSnapshot | undefined) | undefined;

  private readonly httpDuration: Histogram<'route' | 'method' | 'status'>;
  private readonly httpTotal: Counter<'route' | 'method' | 'status'>;
  private readonly inFlight: Gauge;
  private readonly sse: Gauge;
  private readonly timeToMeta: Histogram<'answerer'>;
  private readonly timeToFirstChunk: Histogram<'answerer'>;
  private readonly answers: Counter<'answerer' | 'retrieval'>;
  private readonly aborted: Counter<'answerer'>;
  private readonly searchDuration: Histogram<'mode'>;
  private readonly searchEmpty: Counter<'mode'>;
  private readonly contextDuration: Histogram;
  private readonly contextEmpty: Counter;
  private readonly providerCalls: Counter<'provider' | 'operation' | 'outcome'>;
  private readonly providerDuration: Histogram<'provider' | 'operation'>;
  private readonly tokens: Counter<'provider' | 'operation' | 'kind'>;
  private readonly retries: Counter<'provider' | 'operation'>;
  private readonly documents: Counter<'method' | 'outcome'>;
  private readonly chunks: Counter<'method' | 'outcome'>;
  private readonly jobsFinished: Counter<'type' | 'outcome'>;
  private readonly refusals: Counter<'limit'>;
  private readonly faqLookups: Counter<'result'>;
  private readonly faqGenerations: Counter<'outcome'>;
  private readonly faqJoins: Counter;

  constructor(options: { defaultMetrics?: boolean; labels?: Record<string, string> } = {}) {
    const registers = [this.registry];
    if (options.labels) this.registry.setDefaultLabels(options.labels);
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    // The gauges' collect() runs with the gauge as `this`: the sources are reached through these.
    const queues = () => this.queues;
    const jobCounts = () => this.jobCounts;
    const store = () => this.store?.();
    this.httpDuration = new Histogram({
      name: 'kb_http_request_duration_seconds',
      help: 'HTTP requests by route template, method and status: time to the last byte of the response',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.httpTotal = new Counter({ name: 'kb_http_requests_total', help: 'HTTP requests answered, by route template, method and status', labelNames: ['route', 'method', 'status'], registers });
    this.inFlight = new Gauge({ name: 'kb_http_requests_in_flight', help: 'HTTP requests being served', registers });
    this.sse = new Gauge({ name: 'kb_sse_streams_open', help: 'Open event streams (streamed chat answers)', registers });
    this.timeToMeta = new Histogram({ name: 'kb_chat_time_to_meta_seconds', help: 'Chat: from the question to the meta event (retrieval done, sources known)', labelNames: ['answerer'], buckets: LATENCY_BUCKETS, registers });
    this.timeToFirstChunk = new Histogram({ name: 'kb_chat_time_to_first_chunk_seconds', help: 'Chat: from the question to the first chunk of the answer', labelNames: ['answerer'], buckets: LATENCY_BUCKETS, registers });
    this.answers = new Counter({ name: 'kb_chat_answers_total', help: 'Chat answers completed, by answerer and retrieval mode', labelNames: ['answerer', 'retrieval'], registers });
    this.aborted = new Counter({ name: 'kb_chat_aborted_total', help: 'Chat answers stopped because the client went away', labelNames: ['answerer'], registers });
    this.searchDuration = new Histogram({ name: 'kb_search_duration_seconds', help: 'Searches (POST /search, MCP search, kbTools search) by mode', labelNames: ['mode'], buckets: LATENCY_BUCKETS, registers });
    this.searchEmpty = new Counter({ name: 'kb_search_empty_total', help: 'Searches that returned no result, by mode', labelNames: ['mode'], registers });
    this.contextDuration = new Histogram({ name: 'kb_context_duration_seconds', help: 'Context calls (POST /context, MCP get_context): retrieval of the passages', buckets: LATENCY_BUCKETS, registers });
    this.contextEmpty = new Counter({ name: 'kb_context_empty_total', help: 'Context calls that found no passage', registers });
    this.providerCalls = new Counter({ name: 'kb_provider_calls_total', help: 'Calls to embedding, reranking and language model providers, by outcome', labelNames: ['provider', 'operation', 'outcome'], registers });
    this.providerDuration = new Histogram({ name: 'kb_provider_call_duration_seconds', help: 'Provider call latency (retries included)', labelNames: ['provider', 'operation'], buckets: LATENCY_BUCKETS, registers });
    this.tokens = new Counter({ name: 'kb_provider_tokens_total', help: 'Tokens billed by providers: input, output, and for Claude cache reads and writes', labelNames: ['provider', 'operation', 'kind'], registers });
    this.retries = new Counter({ name: 'kb_provider_retries_total', help: 'Provider requests sent again after a transient failure', labelNames: ['provider', 'operation'], registers });
    this.documents = new Counter({ name: 'kb_ingest_documents_total', help: 'Documents ingested, by method and outcome', labelNames: ['method', 'outcome'], registers });
    this.chunks = new Counter({ name: 'kb_ingest_chunks_total', help: 'Chunks written by ingestion, by method and outcome', labelNames: ['method', 'outcome'], registers });
    this.jobsFinished = new Counter({ name: 'kb_job_attempts_total', help: 'Job attempts run by this process, by type and outcome', labelNames: ['type', 'outcome'], registers });
    this.refusals = new Counter({ name: 'kb_rate_limit_refusals_total', help: 'Requests refused by a rate limit, by limit', labelNames: ['limit'], registers });
    this.faqLookups = new Counter({ name: 'kb_faq_cache_total', help: 'FAQ requests answered from the cache (hit) or not (miss)', labelNames: ['result'], registers });
    this.faqGenerations = new Counter({ name: 'kb_faq_generations_total', help: 'FAQ documents generated, by outcome', labelNames: ['outcome'], registers });
    this.faqJoins = new Counter({ name: 'kb_faq_singleflight_joins_total', help: 'FAQ requests that waited for a generation already under way instead of starting one', registers });
    new Counter({
      name: 'kb_embedded_vacuum_runs_total',
      help: 'Tables the embedded store vacuumed (and analysed) since it opened',
      registers,
      collect() {
        const runs = store()?.vacuumRuns;
        if (runs === undefined) return;
        this.reset();
        this.inc(runs);
      },
    });
    new Gauge({
      name: 'kb_job_queue_depth',
      help: 'Queue entries by queue and state (waiting, delayed for a retry, active)',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        for (const [queue, read] of queues()) {
          const snapshot = await read();
          for (const state of ['waiting', 'delayed', 'active'] as const) this.set({ queue, state }, snapshot[state]);
        }
      },
    });
    new Gauge({
      name: 'kb_job_queue_oldest_waiting_seconds',
      help: 'Age of the oldest waiting queue entry (0 when none waits)',
      labelNames: ['queue'],
      registers,
      async collect() {
        this.reset();
        for (const [queue, read] of queues()) this.set({ queue }, ((await read()).oldestWaitingMs ?? 0) / 1000);
      },
    });
    new Gauge({
      name: 'kb_jobs',
      help: 'Jobs in the jobs table by state',
      labelNames: ['state'],
      registers,
      async collect() {
        const read = jobCounts();
        if (!read) return;
        const counts = await read();
        for (const state of JOB_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });
    new Gauge({
      name: 'kb_db_pool_connections',
      help: 'Database pool connections: in use, idle, and requests waiting for one',
      labelNames: ['state'],
      registers,
      collect() {
        const pool = store()?.pool;
        if (!pool) return;
        this.set({ state: 'in_use' }, pool.total - pool.idle);
        this.set({ state: 'idle' }, pool.idle);
        this.set({ state: 'waiting' }, pool.waiting);
      },
    });
  }

  httpRequest(route: string, method: string, status: number, seconds: number): void {
    const labels = { route, method: HTTP_METHODS.has(method) ? method : 'other', status: String(status) };
    this.httpDuration.observe(labels, seconds);
    this.httpTotal.inc(labels);
  }
  httpInFlight(delta: 1 | -1): void {
    this.inFlight.inc(delta);
  }
  sseStream(delta: 1 | -1): void {
    this.sse.inc(delta);
  }
  chatMeta(answerer: string, seconds: number): void {
    this.timeToMeta.observe({ answerer }, seconds);
  }
  chatFirstChunk(answerer: string, seconds: number): void {
    this.timeToFirstChunk.observe({ answerer }, seconds);
  }
  chatAnswer(answerer: string, retrieval: string): void {
    this.answers.inc({ answerer, retrieval });
  }
  chatAborted(answerer: string): void {
    this.aborted.inc({ answerer });
  }
  search(mode: string, seconds: number, results: number): void {
    this.searchDuration.observe({ mode }, seconds);
    if (results === 0) this.searchEmpty.inc({ mode });
  }
  context(seconds: number, passages: number): void {
    this.contextDuration.observe(seconds);
    if (passages === 0) this.contextEmpty.inc();
  }
  providerCall(provider: string, operation: ProviderOperation, outcome: ProviderOutcome, seconds: number): void {
    this.providerCalls.inc({ provider, operation, outcome });
    this.providerDuration.observe({ provider, operation }, seconds);
  }
  providerTokens(provider: string, operation: ProviderOperation, kind: TokenKind, count: number): void {
    if (count > 0) this.tokens.inc({ provider, operation, kind }, count);
  }
  providerRetry(provider: string, operation: ProviderOperation): void {
    this.retries.inc({ provider, operation });
  }
  ingested(method: string, outcome: IngestOutcome, chunks: number): void {
    this.documents.inc({ method, outcome });
    if (chunks > 0) this.chunks.inc({ method, outcome }, chunks);
  }
  jobFinished(type: string, outcome: JobOutcomeLabel): void {
    this.jobsFinished.inc({ type, outcome });
  }
  rateLimited(limit: RateLimitName): void {
    this.refusals.inc({ limit });
  }
  faqCache(result: 'hit' | 'miss'): void {
    this.faqLookups.inc({ result });
  }
  faqGeneration(outcome: 'ok' | 'error'): void {
    this.faqGenerations.inc({ outcome });
  }
  faqJoin(): void {
    this.faqJoins.inc();
  }
  observeQueue(queue: 'bullmq' | 'in-process', snapshot: () => Promise<QueueSnapshot> | QueueSnapshot): void {
    this.queues.set(queue, snapshot);
  }
  observeJobs(counts: () => Promise<Record<string, number>>): void {
    this.jobCounts = counts;
  }
  observeStore(snapshot: () => StoreSnapshot | undefined): void {
    this.store = snapshot;
  }

  /** The Prometheus text exposition. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

let current: Metrics = NO_METRICS;

/**
 * The process's recorder: one object for the life of the process that hands every event to the
 * recorder installed last. Not an `export let` swapped at start-up: a module loader hook (the
 * tracing one wraps modules it instruments) may give importers a copy of a module's exports
 * taken when it loaded, and a swapped binding would then stay the no-op for them.
 */
export const metrics: Metrics = {
  get enabled() {
    return current.enabled;
  },
  httpRequest: (route, method, status, seconds) => current.httpRequest(route, method, status, seconds),
  httpInFlight: (delta) => current.httpInFlight(delta),
  sseStream: (delta) => current.sseStream(delta),
  chatMeta: (answerer, seconds) => current.chatMeta(answerer, seconds),
  chatFirstChunk: (answerer, seconds) => current.chatFirstChunk(answerer, seconds),
  chatAnswer: (answerer, retrieval) => current.chatAnswer(answerer, retrieval),
  chatAborted: (answerer) => current.chatAborted(answerer),
  search: (mode, seconds, results) => current.search(mode, seconds, results),
  context: (seconds, passages) => current.context(seconds, passages),
  providerCall: (provider, operation, outcome, seconds) => current.providerCall(provider, operation, outcome, seconds),
  providerTokens: (provider, operation, kind, count) => current.providerTokens(provider, operation, kind, count),
  providerRetry: (provider, operation) => current.providerRetry(provider, operation),
  ingested: (method, outcome, chunks) => current.ingested(method, outcome, chunks),
  jobFinished: (type, outcome) => current.jobFinished(type, outcome),
  rateLimited: (limit) => current.rateLimited(limit),
  faqCache: (result) => current.faqCache(result),
  faqGeneration: (outcome) => current.faqGeneration(outcome),
  faqJoin: () => current.faqJoin(),
  observeQueue: (queue, snapshot) => current.observeQueue(queue, snapshot),
  observeJobs: (counts) => current.observeJobs(counts),
  observeStore: (snapshot) => current.observeStore(snapshot),
};

/** Makes `recorder` the process's recorder (NO_METRICS to turn them off again). */
export function useMetrics(recorder: Metrics): void {
  current = recorder;
}

/** Seconds since `started` (a performance.now() reading). */
export function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}
