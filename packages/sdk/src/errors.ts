import type { components } from './generated/openapi.js';

/** The service's error body: `{ message, code, issues? }`. */
export type ErrorBody = components['schemas']['Error'];
export type ErrorCode = ErrorBody['code'];
export type InputIssue = NonNullable<ErrorBody['issues']>[number];

/**
 * Every answer of the service that is not a success (4xx, 5xx): its status, its code (such as
 * NOT_FOUND or TOO_MANY_REQUESTS), its message, the problems of an invalid input, and on a 429
 * the seconds to wait.
 */
export class KbError extends Error {
  override readonly name = 'KbError';
  readonly status: number;
  /** The service's code; an answer that is not the service's JSON (a proxy's page) gets `HTTP_<status>`. */
  readonly code: ErrorCode | `HTTP_${number}`;
  /** Invalid input (400): each problem, with the path of the field. Empty otherwise. */
  readonly issues: InputIssue[];
  /** Seconds to wait before trying again, from Retry-After (429, and a 503 that says). */
  readonly retryAfter: number | undefined;
  /** The X-Request-Id of the answer, to find it in the service's log. */
  readonly requestId: string | undefined;

  constructor(init: { status: number; code: KbError['code']; message: string; issues?: InputIssue[]; retryAfter?: number; requestId?: string }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.issues = init.issues ?? [];
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
  }
}

/**
 * The request never got an answer: the service could not be reached, the connection broke, or
 * the answer could not be read. `cause` holds the underlying error. Cancelling through an
 * AbortSignal is not one of these: it rejects with the signal's own AbortError.
 */
export class KbNetworkError extends Error {
  override readonly name = 'KbNetworkError';

  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/** Seconds from a Retry-After header (a number of seconds or an HTTP date). */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as ErrorBody).message === 'string' && typeof (value as ErrorBody).code === 'string';
}

/** The KbError of a non-2xx answer, from its parsed body (or its text when it is not the service's JSON). */
export function kbErrorFrom(response: Response, body: unknown): KbError {
  const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const common = { status: response.status, ...(retryAfter !== undefined ? { retryAfter } : {}), ...(requestId ? { requestId } : {}) };
  if (isErrorBody(body)) {
    return new KbError({ ...common, code: body.code, message: body.message, ...(Array.isArray(body.issues) ? { issues: body.issues } : {}) });
  }
  const text = typeof body === 'string' ? body.trim().slice(0, 200) : '';
  return new KbError({ ...common, code: `HTTP_${response.status}`, message: text || `HTTP ${response.status} ${response.statusText}`.trim() });
}

/** Whether `error` is a cancellation (the caller's AbortSignal), which is passed on untouched. */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
