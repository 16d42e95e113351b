import { VoyageAIClient, VoyageAIError, VoyageAITimeoutError, isLocalModel } from 'voyageai';
import { inSpan } from '../telemetry/tracing.ts';
import { metrics, secondsSince } from '../telemetry/metrics.ts';
import type { Embedder, EmbeddingInputType } from './types.ts';

/** Per-model facts used to size requests and check vectors. */
export interface VoyageModelInfo {
  /** Most tokens the API accepts across all texts of one request. */
  readonly batchTokens: number;
  /** Vector length when no output_dimension is sent. */
  readonly defaultDimension: number;
  /** Values accepted as output_dimension; absent when the model has one fixed dimension. */
  readonly outputDimensions?: readonly number[];
}

const FLEXIBLE_DIMENSIONS = [256, 512, 1024, 2048] as const;

/**
 * Request limits of Voyage's text embedding models (docs.voyageai.com/reference/embeddings-api).
 * Models not listed here get {@link DEFAULT_BATCH_TOKENS} and must be given a dimension.
 * voyage-3 and voyage-3-lite are older models whose documented caps changed over time; they get
 * the conservative 120K.
 */
export const VOYAGE_MODELS: Readonly<Record<string, VoyageModelInfo>> = {
  'voyage-4-large': { batchTokens: 120_000, defaultDimension: 1024, outputDimensions: FLEXIBLE_DIMENSIONS },
  'voyage-4': { batchTokens: 320_000, defaultDimension: 1024, outputDimensions: FLEXIBLE_DIMENSIONS },
  'voyage-4-lite': { batchTokens: 1_000_000, defaultDimension: 1024, outputDimensions: FLEXIBLE_DIMENSIONS },
  'voyage-3.5': { batchTokens: 320_000, defaultDimension: 1024, outputDimensions: FLEXIBLE_DIMENSIONS },
  'voyage-3.5-lite': { batchTokens: 1_000_000, defaultDimension: 1024, outputDimensions: FLEXIBLE_DIMENSIONS },
  'voyage-3-large': { batchTokens: 120_000, defaultDimension: 1024, outputDimensions: FLEXIBLE_DIMENSIONS },
  'voyage-code-3': { batchTokens: 120_000, defaultDimension: 1024, outputDimensions: FLEXIBLE_DIMENSIONS },
  'voyage-finance-2': { batchTokens: 120_000, defaultDimension: 1024 },
  'voyage-law-2': { batchTokens: 120_000, defaultDimension: 1024 },
  'voyage-multilingual-2': { batchTokens: 120_000, defaultDimension: 1024 },
  'voyage-3': { batchTokens: 120_000, defaultDimension: 1024 },
  'voyage-3-lite': { batchTokens: 120_000, defaultDimension: 512 },
  'voyage-large-2': { batchTokens: 120_000, defaultDimension: 1536 },
  'voyage-code-2': { batchTokens: 120_000, defaultDimension: 1536 },
  'voyage-2': { batchTokens: 320_000, defaultDimension: 1024 },
};

/** Token cap per request for models missing from {@link VOYAGE_MODELS}. */
export const DEFAULT_BATCH_TOKENS = 120_000;
/** Most texts the API accepts in one request. */
export const MAX_TEXTS_PER_REQUEST = 1000;
/** Share of a model's token cap that one request may fill by estimate: headroom for estimation error. */
export const BATCH_TOKEN_HEADROOM = 0.9;
/** Tokens added to every text's estimate: the input_type prompt the API prepends, special tokens. */
const PER_TEXT_TOKEN_OVERHEAD = 16;

const DEFAULT_MODEL = 'voyage-3.5';
const DEFAULT_MAX_RETRIES = 5;
const DEFAULT_CONCURRENCY = 3;
const DEFAULT_RETRY_BASE_DELAY_MS = 500;
const DEFAULT_RETRY_MAX_DELAY_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 60_000;

export interface VoyageEmbedderOptions {
  apiKey: string;
  /** API root including /v1 (e.g. "https://api.voyageai.com/v1"); passed to the SDK as its environment. */
  baseUrl?: string;
  /** Defaults to "voyage-3.5". */
  model?: string;
  /**
   * Vector length. Defaults to the model's own (1024 for voyage-3.5); when given, it is sent as
   * output_dimension. Required for models missing from {@link VOYAGE_MODELS}.
   */
  dimension?: number;
  /** Retries after the first attempt of each request, on 408/429/5xx, timeouts and network errors. Default 5. */
  maxRetries?: number;
  /** Requests in flight at once for one embed() call. Default 3. */
  concurrency?: number;
  /** First backoff step; doubles per retry, with jitter. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Ceiling of one backoff wait, Retry-After included. Default 60 s. */
  retryMaxDelayMs?: number;
  /** Per-attempt timeout. Default 60 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  logger?: { warn(obj: object, msg?: string): void };
  /** Waits between retries; rejects with the signal's reason when it aborts. Injected by tests. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** A failed embedding call. Never carries the API key. */
export class EmbeddingError extends Error {
  /** Whether trying again later might succeed (rate limit, server error, network). */
  readonly retryable: boolean;
  /** HTTP status of the failing response, when there was one. */
  readonly status: number | undefined;

  constructor(message: string, options: { retryable: boolean; status?: number | undefined; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EmbeddingError';
    this.retryable = options.retryable;
    this.status = options.status;
  }
}

/**
 * Upper-leaning token estimate without a tokenizer: a third of a token per ASCII character
 * (Voyage's tokenizers average about four characters a token on English and code), one token per
 * other UTF-16 unit (CJK, emoji), plus a fixed per-text overhead.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 3) + other + PER_TEXT_TOKEN_OVERHEAD;
}

/** A contiguous run of input texts sent as one request: [start, end). */
export interface BatchRange {
  readonly start: number;
  readonly end: number;
}

/**
 * Splits texts, in order, into runs of at most maxTexts whose estimated tokens stay within
 * maxTokens. A text estimated above maxTokens on its own goes alone (the API truncates it).
 */
export function planBatches(texts: readonly string[], maxTexts: number, maxTokens: number): BatchRange[] {
  const batches: BatchRange[] = [];
  let start = 0;
  let tokens = 0;
  for (let i = 0; i < texts.length; i++) {
    const estimate = estimateTokens(texts[i] ?? '');
    const count = i - start;
    if (count > 0 && (count >= maxTexts || tokens + estimate > maxTokens)) {
      batches.push({ start, end: i });
      start = i;
      tokens = 0;
    }
    tokens += estimate;
  }
  if (start < texts.length) batches.push({ start, end: texts.length });
  return batches;
}

/** Milliseconds to wait from a Retry-After value (delta seconds or HTTP date); undefined when unusable. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function positiveInteger(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new EmbeddingError(`VoyageEmbedder: ${name} must be an integer >= ${min}, got ${String(value)}`, {
      retryable: false,
    });
  }
  return value;
}

/** What went wrong in one attempt, before deciding whether to retry. */
interface AttemptFailure {
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly detail: string;
  readonly retryAfterMs: number | undefined;
}

/** Voyage embeddings through the official SDK, batched, retried and checked. */
export class VoyageEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;

  readonly #apiKey: string;
  readonly #client: VoyageAIClient;
  readonly #outputDimension: number | undefined;
  readonly #batchTokenBudget: number;
  readonly #maxRetries: number;
  readonly #concurrency: number;
  readonly #retryBaseDelayMs: number;
  readonly #retryMaxDelayMs: number;
  readonly #timeoutMs: number;
  readonly #logger: VoyageEmbedderOptions['logger'];
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(options: VoyageEmbedderOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new EmbeddingError('VoyageEmbedder: an API key is required', { retryable: false });
    }
    this.#apiKey = options.apiKey;
    this.model = options.model ?? DEFAULT_MODEL;
    if (isLocalModel(this.model)) {
      throw new EmbeddingError(
        `VoyageEmbedder: ${this.model} is run locally by the SDK, not through the API; this embedder only calls the API`,
        { retryable: false },
      );
    }

    const info = VOYAGE_MODELS[this.model];
    const dimension = options.dimension;
    if (dimension !== undefined) positiveInteger('dimension', dimension, 0);
    if (info === undefined) {
      if (dimension === undefined) {
        throw new EmbeddingError(
          `VoyageEmbedder: model ${this.model} is not in the built-in table; set dimension to its vector length`,
          { retryable: false },
        );
      }
      this.dimension = dimension;
      this.#outputDimension = dimension;
    } else if (dimension === undefined) {
      this.dimension = info.defaultDimension;
      this.#outputDimension = undefined;
    } else if (info.outputDimensions === undefined) {
      if (dimension !== info.defaultDimension) {
        throw new EmbeddingError(
          `VoyageEmbedder: model ${this.model} only returns ${info.defaultDimension}-dimensional vectors, but dimension is ${dimension}`,
          { retryable: false },
        );
      }
      this.dimension = dimension;
      this.#outputDimension = undefined;
    } else {
      if (!info.outputDimensions.includes(dimension)) {
        throw new EmbeddingError(
          `VoyageEmbedder: model ${this.model} supports dimensions ${info.outputDimensions.join(', ')}, not ${dimension}`,
          { retryable: false },
        );
      }
      this.dimension = dimension;
      this.#outputDimension = dimension;
    }

    this.#batchTokenBudget = Math.floor((info?.batchTokens ?? DEFAULT_BATCH_TOKENS) * BATCH_TOKEN_HEADROOM);
    this.#maxRetries = positiveInteger('maxRetries', options.maxRetries, DEFAULT_MAX_RETRIES, 0);
    this.#concurrency = positiveInteger('concurrency', options.concurrency, DEFAULT_CONCURRENCY);
    this.#retryBaseDelayMs = positiveInteger('retryBaseDelayMs', options.retryBaseDelayMs, DEFAULT_RETRY_BASE_DELAY_MS, 0);
    this.#retryMaxDelayMs = positiveInteger('retryMaxDelayMs', options.retryMaxDelayMs, DEFAULT_RETRY_MAX_DELAY_MS, 0);
    this.#timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
    this.#logger = options.logger;
    this.#sleep = options.sleep ?? abortableSleep;

    this.#client = new VoyageAIClient({
      apiKey: options.apiKey,
      ...(options.baseUrl === undefined ? {} : { environment: options.baseUrl }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      maxRetries: 0,
      timeoutInSeconds: this.#timeoutMs / 1000,
    });
  }

  async embed(texts: readonly string[], inputType: EmbeddingInputType, signal?: AbortSignal): Promise<number[][]> {
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const began = performance.now();
    try {
      const vectors = await inSpan('embedding voyage', { 'kb.provider': 'voyage', 'kb.model': this.model, 'kb.texts': texts.length, 'kb.input_type': inputType }, () =>
        this.#embedAll(texts, inputType, signal),
      );
      metrics.providerCall('voyage', 'embed', 'ok', secondsSince(began));
      return vectors;
    } catch (error) {
      metrics.providerCall('voyage', 'embed', signal?.aborted ? 'aborted' : 'error', secondsSince(began));
      throw error;
    }
  }

  async #embedAll(texts: readonly string[], inputType: EmbeddingInputType, signal: AbortSignal | undefined): Promise<number[][]> {

    const batches = planBatches(texts, MAX_TEXTS_PER_REQUEST, this.#batchTokenBudget);
    const results: number[][] = new Array<number[]>(texts.length);

    // One controller for the whole call: the caller's abort, or the first failing batch, stops the rest.
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', forwardAbort, { once: true });

    let next = 0;
    let failure: { error: unknown } | undefined;
    const worker = async () => {
      while (failure === undefined && !controller.signal.aborted) {
        const batch = batches[next++];
        if (batch === undefined) return;
        try {
          const vectors = await this.#embedBatch(texts.slice(batch.start, batch.end), inputType, controller.signal);
          vectors.forEach((vector, i) => {
            results[batch.start + i] = vector;
          });
        } catch (error) {
          if (failure === undefined) {
            failure = { error };
            controller.abort(error);
          }
          return;
        }
      }
    };

    try {
      await Promise.all(Array.from({ length: Math.min(this.#concurrency, batches.length) }, worker));
    } finally {
      signal?.removeEventListener('abort', forwardAbort);
    }
    if (signal?.aborted) throw signal.reason;
    if (failure !== undefined) throw failure.error;
    return results;
  }

  /** One request, retried; returns vectors in the order of `texts`. */
  async #embedBatch(texts: string[], inputType: EmbeddingInputType, signal: AbortSignal): Promise<number[][]> {
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted();
      let response: Awaited<ReturnType<VoyageAIClient['embed']>>;
      try {
        response = await this.#client.embed(
          {
            input: texts,
            model: this.model,
            inputType,
            truncation: true,
            ...(this.#outputDimension === undefined ? {} : { outputDimension: this.#outputDimension }),
          },
          { abortSignal: signal, maxRetries: 0 },
        );
      } catch (error) {
        signal.throwIfAborted();
        const failed = this.#classify(error);
        if (!failed.retryable) throw this.#finalError(failed, attempt + 1);
        if (attempt >= this.#maxRetries) throw this.#finalError(failed, attempt + 1);
        const delayMs = this.#backoff(attempt, failed.retryAfterMs);
        this.#logger?.warn(
          {
            model: this.model,
            status: failed.status,
            attempt: attempt + 1,
            maxRetries: this.#maxRetries,
            delayMs,
            texts: texts.length,
            detail: failed.detail,
          },
          'Voyage embeddings request failed; retrying',
        );
        metrics.providerRetry('voyage', 'embed');
        await this.#sleep(delayMs, signal);
        continue;
      }
      const tokens = (response as { usage?: { totalTokens?: unknown } }).usage?.totalTokens;
      if (typeof tokens === 'number') metrics.providerTokens('voyage', 'embed', 'input', tokens);
      return this.#readVectors(response, texts.length);
    }
  }

  #backoff(attempt: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, this.#retryMaxDelayMs);
    const ceiling = Math.min(this.#retryMaxDelayMs, this.#retryBaseDelayMs * 2 ** attempt);
    // Half fixed, half random: spreads out clients that failed together, never waits near zero.
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }

  #classify(error: unknown): AttemptFailure {
    if (error instanceof VoyageAITimeoutError) {
      return { retryable: true, status: undefined, detail: `timed out after ${this.#timeoutMs} ms`, retryAfterMs: undefined };
    }
    if (error instanceof VoyageAIError) {
      const status = error.statusCode;
      if (status === undefined) {
        // No response: the SDK turns network failures into a status-less error.
        return { retryable: true, status, detail: `network error: ${this.#redact(error.message)}`, retryAfterMs: undefined };
      }
      const headers: unknown = error.rawResponse?.headers;
      const retryAfter =
        headers !== null && typeof headers === 'object' && 'get' in headers && typeof headers.get === 'function'
          ? parseRetryAfter((headers as Headers).get('retry-after'))
          : undefined;
      const retryable = status === 408 || status === 429 || status >= 500;
      return { retryable, status, detail: this.#describeBody(error.body), retryAfterMs: retryAfter };
    }
    const message = error instanceof Error ? error.message : String(error);
    return { retryable: false, status: undefined, detail: this.#redact(message), retryAfterMs: undefined };
  }

  #finalError(failed: AttemptFailure, attempts: number): EmbeddingError {
    const where = `Voyage embeddings (${this.model})`;
    const http = failed.status === undefined ? '' : ` with HTTP ${failed.status}`;
    const detail = failed.detail === '' ? '' : `: ${failed.detail}`;
    let message: string;
    if (failed.status === 401 || failed.status === 403) {
      message = `${where} rejected the credentials${http}${detail}. Check the configured Voyage API key.`;
    } else if (!failed.retryable) {
      message = `${where} request failed${http}${detail}`;
    } else {
      message = `${where} request failed${http} after ${attempts} attempt${attempts === 1 ? '' : 's'}${detail}`;
    }
    return new EmbeddingError(message, { retryable: failed.retryable, status: failed.status });
  }

  /** A short, key-free description of an error response body. */
  #describeBody(body: unknown): string {
    let text: string;
    if (body === undefined || body === null) text = '';
    else if (typeof body === 'string') text = body;
    else if (typeof body === 'object' && 'detail' in body && typeof body.detail === 'string') text = body.detail;
    else {
      try {
        text = JSON.stringify(body);
      } catch {
        text = '';
      }
    }
    text = this.#redact(text.trim());
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  }

  #redact(text: string): string {
    return text.split(this.#apiKey).join('[redacted]');
  }

  #readVectors(response: unknown, expected: number): number[][] {
    const invalid = (why: string) =>
      new EmbeddingError(`Voyage embeddings (${this.model}) returned an invalid response: ${why}`, { retryable: false });
    const data: unknown =
      response !== null && typeof response === 'object' && 'data' in response ? response.data : undefined;
    if (!Array.isArray(data)) throw invalid('no data array');
    if (data.length !== expected) throw invalid(`${data.length} embeddings for ${expected} texts`);

    const vectors = new Array<number[] | undefined>(expected).fill(undefined);
    data.forEach((item: unknown, position) => {
      const record = item !== null && typeof item === 'object' ? (item as Record<string, unknown>) : {};
      const index = record.index ?? position;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected) {
        throw invalid(`embedding index ${String(index)} out of range`);
      }
      if (vectors[index] !== undefined) throw invalid(`embedding index ${index} repeated`);
      const embedding = record.embedding;
      if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw invalid(`embedding ${index} is not a list of numbers`);
      }
      if (embedding.length !== this.dimension) {
        throw new EmbeddingError(
          `Voyage embeddings (${this.model}) returned ${embedding.length}-dimensional vectors, but the embedder is configured ` +
            `for dimension ${this.dimension}; set dimension to a size the model produces`,
          { retryable: false },
        );
      }
      vectors[index] = normalise(embedding as number[], () => invalid(`embedding ${index} is all zeros`));
    });
    return vectors as number[][];
  }
}

function normalise(vector: number[], onZero: () => Error): number[] {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm === 0 || !Number.isFinite(norm)) throw onZero();
  return vector.map((x) => x / norm);
}
