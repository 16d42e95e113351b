/**
 * Answers written by Claude through @anthropic-ai/sdk, streamed.
 *
 * Retries are this module's, not the SDK's (the client is built with maxRetries 0, so the policy
 * is one place and testable): 429, 529 and other 5xx answers, and connection failures, are tried
 * again with backoff (Retry-After honoured up to a ceiling), but only until the first fragment of
 * the answer has been passed on: after that a failure ends the answer, because a retry would
 * write it again from the start.
 */
import { endSpan, inSpan, startSpan } from '../telemetry/tracing.ts';
import type Anthropic from '@anthropic-ai/sdk';
import type * as AnthropicSdk from '@anthropic-ai/sdk';
import type { Stream } from '@anthropic-ai/sdk/core/streaming';
import type { Message, MessageCreateParamsNonStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { untilAborted } from '../abort.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { metrics, secondsSince, type ProviderOperation } from '../telemetry/metrics.ts';
import { buildAnswerPrompt, buildRewritePrompt, type AnswerPrompt } from './prompt.ts';
import type { QueryRewriter } from './passages.ts';
import type { Answerer, AnswerInput, AnswerStream, HistoryMessage } from './types.ts';

export interface AnthropicSettings {
  apiKey: string;
  /** The SDK's baseURL (without /v1), for gateways and proxies. */
  baseUrl?: string;
  model: string;
  maxTokens: number;
}

type Sdk = typeof AnthropicSdk;
let sdk: Sdk | undefined;

/**
 * The SDK, loaded when a client is first built: it takes a few hundred milliseconds to import,
 * which a service without ANTHROPIC_API_KEY (and every CLI command) should not pay.
 */
async function loadSdk(): Promise<Sdk> {
  sdk ??= await import('@anthropic-ai/sdk');
  return sdk;
}

/** The one way the service builds its Anthropic client: retries off (see {@link RetryPolicy}). */
export async function createAnthropicClient(settings: Pick<AnthropicSettings, 'apiKey' | 'baseUrl'>, options: { timeoutMs?: number } = {}): Promise<Anthropic> {
  const { default: Anthropic } = await loadSdk();
  return new Anthropic({
    apiKey: settings.apiKey,
    ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
    maxRetries: 0,
    timeout: options.timeoutMs ?? 120_000,
  });
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** First backoff step; doubles per retry, with jitter. */
  baseDelayMs: number;
  /** Ceiling of one wait, Retry-After included. */
  maxDelayMs: number;
  /** Waits; rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 8_000, sleep };

/** Whether a failed model call may be tried again: rate limited (429), overloaded (529), other 5xx, no connection. */
export function isRetryableModelError(error: unknown): boolean {
  // The SDK's errors exist only once it is loaded (a client was built).
  if (!sdk) return false;
  const { APIConnectionError, APIError, APIUserAbortError } = sdk;
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof APIConnectionError) return true;
  if (error instanceof APIError) {
    const status = error.status;
    if (status === undefined) {
      // An error event inside a stream that had started: its type says what happened.
      return error.type === 'overloaded_error' || error.type === 'rate_limit_error' || error.type === 'api_error';
    }
    return status === 429 || status === 529 || status >= 500;
  }
  return false;
}

/** The wait before retry number `attempt` (0-based): Retry-After when the answer gave one, else backoff. */
export function retryDelay(error: unknown, attempt: number, policy: RetryPolicy): number {
  const header = isApiError(error) ? error.headers?.get('retry-after') : null;
  const seconds = header ? Number(header) : Number.NaN;
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** A model failure as the service reports it: never the key, never the SDK's internals. */
function isApiError(error: unknown): error is InstanceType<Sdk['APIError']> {
  return sdk !== undefined && error instanceof sdk.APIError;
}

export function modelFailure(error: unknown, model: string): AppError {
  if (error instanceof AppError) return error;
  if (isApiError(error) && (error.status === 401 || error.status === 403)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The language model rejected the configured credentials (check ANTHROPIC_API_KEY)', { cause: error });
  }
  const status = isApiError(error) && error.status !== undefined ? ` (HTTP ${error.status})` : isApiError(error) && error.type ? ` (${error.type})` : '';
  return new AppError('SERVICE_UNAVAILABLE', `The language model (${model}) failed${status}; try again later`, { cause: error });
}

/**
 * The text of a streamed Messages API call, fragment by fragment, with {@link RetryPolicy} applied
 * before the first fragment.
 */
export async function* streamText(
  client: Anthropic | Promise<Anthropic>,
  request: AnswerPrompt & { model: string; maxTokens: number },
  options: { signal?: AbortSignal; policy?: RetryPolicy; logger?: Logger; operation?: ProviderOperation } = {},
): AsyncGenerator<string> {
  const operation = options.operation ?? 'answer';
  const began = performance.now();
  const span = startSpan(`model anthropic ${operation}`, { 'kb.provider': 'anthropic', 'kb.model': request.model });
  let outcome: 'ok' | 'error' | 'aborted' = 'ok';
  let failure: unknown;
  try {
    yield* streamAttempts(client, request, options, operation);
  } catch (error) {
    outcome = options.signal?.aborted ? 'aborted' : 'error';
    failure = error;
    throw error;
  } finally {
    metrics.providerCall('anthropic', operation, outcome, secondsSince(began));
    span?.setAttribute('kb.outcome', outcome);
    endSpan(span, outcome === 'error' ? failure : undefined);
  }
}

/** Claude's usage figures, as billed: input, output, cache reads and writes. */
function recordUsage(operation: ProviderOperation, usage: Partial<Record<'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens', number | null>> | undefined): void {
  if (!usage || !metrics.enabled) return;
  metrics.providerTokens('anthropic', operation, 'input', usage.input_tokens ?? 0);
  metrics.providerTokens('anthropic', operation, 'output', usage.output_tokens ?? 0);
  metrics.providerTokens('anthropic', operation, 'cache_read', usage.cache_read_input_tokens ?? 0);
  metrics.providerTokens('anthropic', operation, 'cache_write', usage.cache_creation_input_tokens ?? 0);
}

async function* streamAttempts(
  client: Anthropic | Promise<Anthropic>,
  request: AnswerPrompt & { model: string; maxTokens: number },
  options: { signal?: AbortSignal; policy?: RetryPolicy; logger?: Logger },
  operation: ProviderOperation,
): AsyncGenerator<string> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  for (let attempt = 0; ; attempt++) {
    let started = false;
    let stream: Stream<RawMessageStreamEvent> | undefined;
    try {
      stream = await (await client).messages.create(
        { model: request.model, max_tokens: request.maxTokens, system: request.system, messages: request.messages, stream: true },
        options.signal ? { signal: options.signal } : {},
      );
      const events = stream[Symbol.asyncIterator]();
      for (;;) {
        // Raced with the signal: a response body that ignores the abort is abandoned, not awaited.
        const next = options.signal ? await untilAborted(events.next(), options.signal) : await events.next();
        if (next.done) return;
        const event = next.value;
        // message_start carries the input side; message_delta the final output count.
        if (event.type === 'message_start') recordUsage(operation, { ...event.message.usage, output_tokens: 0 });
        else if (event.type === 'message_delta') recordUsage(operation, { output_tokens: event.usage.output_tokens });
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta' && event.delta.text !== '') {
          started = true;
          yield event.delta.text;
        }
      }
    } catch (error) {
      if (options.signal?.aborted) {
        stream?.controller.abort();
        throw options.signal.reason;
      }
      if (started || !isRetryableModelError(error) || attempt + 1 >= policy.attempts) throw modelFailure(error, request.model);
      const delayMs = retryDelay(error, attempt, policy);
      options.logger?.warn(
        { status: isApiError(error) ? error.status : undefined, attempt: attempt + 1, delayMs },
        'language model call failed before its first token; retrying',
      );
      metrics.providerRetry('anthropic', operation);
      await policy.sleep(delayMs, options.signal);
    }
  }
}

/**
 * A Messages API call answered whole (tool use, structured output), with {@link RetryPolicy}
 * applied: nothing has been passed on before it returns, so every retryable failure is retried.
 */
export async function completeMessage(
  client: Anthropic | Promise<Anthropic>,
  params: MessageCreateParamsNonStreaming,
  options: { signal?: AbortSignal; policy?: RetryPolicy; logger?: Logger; operation?: ProviderOperation } = {},
): Promise<Message> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const operation = options.operation ?? 'faq';
  return inSpan(`model anthropic ${operation}`, { 'kb.provider': 'anthropic', 'kb.model': params.model }, () => completeAttempts(client, params, options, policy, operation));
}

async function completeAttempts(
  client: Anthropic | Promise<Anthropic>,
  params: MessageCreateParamsNonStreaming,
  options: { signal?: AbortSignal; logger?: Logger },
  policy: RetryPolicy,
  operation: ProviderOperation,
): Promise<Message> {
  const began = performance.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const message = await (await client).messages.create(params, options.signal ? { signal: options.signal } : {});
      metrics.providerCall('anthropic', operation, 'ok', secondsSince(began));
      recordUsage(operation, message.usage);
      return message;
    } catch (error) {
      if (options.signal?.aborted) {
        metrics.providerCall('anthropic', operation, 'aborted', secondsSince(began));
        throw options.signal.reason;
      }
      if (!isRetryableModelError(error) || attempt + 1 >= policy.attempts) {
        metrics.providerCall('anthropic', operation, 'error', secondsSince(began));
        throw modelFailure(error, params.model);
      }
      const delayMs = retryDelay(error, attempt, policy);
      options.logger?.warn({ status: isApiError(error) ? error.status : undefined, attempt: attempt + 1, delayMs }, 'language model call failed; retrying');
      metrics.providerRetry('anthropic', operation);
      await policy.sleep(delayMs, options.signal);
    }
  }
}

/** Claude as the answerer: the passages go to the model, which writes the answer. */
export class ClaudeAnswerer implements Answerer {
  readonly kind = 'claude' as const;

  constructor(
    private readonly client: Anthropic | Promise<Anthropic>,
    private readonly settings: Pick<AnthropicSettings, 'model' | 'maxTokens'> & { historyTokens: number },
    private readonly options: { policy?: RetryPolicy; logger?: Logger } = {},
  ) {}

  async answer(input: AnswerInput, signal?: AbortSignal): Promise<AnswerStream> {
    const prompt = buildAnswerPrompt({ ...input, historyTokens: this.settings.historyTokens });
    return {
      passages: input.passages,
      fragments: streamText(
        this.client,
        { ...prompt, model: this.settings.model, maxTokens: this.settings.maxTokens },
        { ...this.options, ...(signal ? { signal } : {}) },
      ),
    };
  }
}

/** Most variants a rewrite contributes. */
const MAX_VARIANTS = 3;

/** Smart retrieval's standalone query and variants, written by Claude. */
export class ClaudeQueryRewriter implements QueryRewriter {
  constructor(
    private readonly client: Anthropic | Promise<Anthropic>,
    private readonly settings: { model: string; historyTokens: number },
    private readonly options: { policy?: RetryPolicy; logger?: Logger } = {},
  ) {}

  async rewrite(message: string, history: readonly HistoryMessage[], signal?: AbortSignal): Promise<{ query: string; variants: string[] }> {
    const prompt = buildRewritePrompt(message, history, this.settings.historyTokens);
    let text = '';
    for await (const fragment of streamText(this.client, { ...prompt, model: this.settings.model, maxTokens: 300 }, { ...this.options, operation: 'rewrite', ...(signal ? { signal } : {}) })) {
      text += fragment;
    }
    return parseRewrite(text, message);
  }
}

/** The model's JSON reply, checked: a usable query (else the message) and a few distinct variants. */
export function parseRewrite(text: string, message: string): { query: string; variants: string[] } {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  let value: unknown;
  try {
    value = json ? JSON.parse(json) : undefined;
  } catch {
    value = undefined;
  }
  const record = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const clean = (v: unknown) => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim().slice(0, 500) : '');
  const query = clean(record.query) || message;
  const seen = new Set([query.toLowerCase()]);
  const variants: string[] = [];
  for (const v of Array.isArray(record.variants) ? record.variants : []) {
    const variant = clean(v);
    if (variant === '' || seen.has(variant.toLowerCase())) continue;
    seen.add(variant.toLowerCase());
    variants.push(variant);
    if (variants.length >= MAX_VARIANTS) break;
  }
  return { query, variants };
}
