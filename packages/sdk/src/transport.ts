import { isAbort, KbNetworkError, retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Further attempts after the first, default 2. */
  retries?: number;
  /** The first wait when the answer gives none (Retry-After), doubled each time; default 500 ms. */
  baseDelayMs?: number;
  /** The longest wait; an answer that asks for longer is returned (thrown) at once. Default 10 s. */
  maxDelayMs?: number;
}

/**
 * Answers worth another try: the request was refused before it did anything. A 429 always is; a
 * 503 is, except from chat, which stores the question before it asks the model: a retry there
 * would ask (and store) it twice.
 */
function retryable(request: Request, status: number): boolean {
  if (status === 429) return true;
  return status === 503 && !(request.method === 'POST' && new URL(request.url).pathname.endsWith('/chat'));
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** How long to wait before attempt `attempt` (1 = the first retry): Retry-After, else doubling with jitter. */
export function retryDelayMs(response: Response, attempt: number, options: Required<RetryOptions>): number {
  const asked = retryAfterSeconds(response.headers.get('retry-after'));
  if (asked !== undefined) return asked * 1000;
  const backoff = options.baseDelayMs * 2 ** (attempt - 1);
  // Up to a quarter either way, so clients refused together do not come back together.
  return Math.round(backoff * (0.75 + Math.random() * 0.5));
}

/**
 * The fetch the client sends through: network failures become KbNetworkError (a cancellation
 * stays the AbortError it is), and with `retry`, 429 and 503 are tried again after the wait the
 * answer asks for (or a doubling backoff), within the bounds given.
 */
export function createTransport(fetchImpl: typeof fetch, retry: boolean | RetryOptions | undefined): (request: Request) => Promise<Response> {
  const options: Required<RetryOptions> | undefined = retry
    ? { retries: 2, baseDelayMs: 500, maxDelayMs: 10_000, ...(typeof retry === 'object' ? retry : {}) }
    : undefined;

  async function send(request: Request): Promise<Response> {
    try {
      return await fetchImpl(request);
    } catch (error) {
      if (isAbort(error) || request.signal.aborted) throw request.signal.aborted ? request.signal.reason : error;
      throw new KbNetworkError(`Could not reach the knowledge base at ${new URL(request.url).origin}: ${(error as Error).message}`, { cause: error });
    }
  }

  return async (request) => {
    if (!options) return send(request);
    for (let attempt = 1; ; attempt++) {
      const response = await send(request.clone());
      if (!retryable(request, response.status) || attempt > options.retries) return response;
      const delay = retryDelayMs(response, attempt, options);
      if (delay > options.maxDelayMs) return response;
      // The refused answer's body is not needed: free its connection (not awaited: some fetch
      // implementations settle a cancel only once the body is drained).
      void response.body?.cancel().catch(() => undefined);
      await sleep(delay, request.signal);
    }
  };
}
