import { storeFailureOf } from '@kb/db';

/**
 * The service's one error type. Every failure a caller can cause or observe is an AppError
 * with a code from this closed set; APP_ERROR_STATUS maps each code to its HTTP status, and
 * the HTTP layer applies that map to REST and tRPC alike.
 */
export const APP_ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  /** An upstream (the language model) answered, but not usably. */
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type AppErrorCode = keyof typeof APP_ERROR_STATUS;

export interface AppErrorOptions {
  cause?: unknown;
  /** Response headers that belong to the error (Retry-After, WWW-Authenticate, ...). */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly headers: Record<string, string>;

  constructor(
    readonly code: AppErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return APP_ERROR_STATUS[this.code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** ioredis failing a command because Redis is down, restarting or not answering. */
function isRedisUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === 'MaxRetriesPerRequestError') return true;
    if (/Stream isn't writeable|Connection is closed|Command timed out|max retries per request/i.test(e.message)) return true;
  }
  return false;
}

/**
 * The AppError a failure of the service's own infrastructure becomes: the database or Redis out
 * of reach (restarting, refusing connections) or the store's disk full is a 503 with a sentence
 * and Retry-After, never a 500. Undefined for anything else (an AppError already, or a fault).
 */
export function unavailableError(error: unknown): AppError | undefined {
  if (isAppError(error)) return undefined;
  if (isRedisUnavailable(error)) {
    return new AppError('SERVICE_UNAVAILABLE', 'Redis cannot be reached; try again shortly', { cause: error, headers: { 'Retry-After': '5' } });
  }
  const failure = storeFailureOf(error);
  if (failure === 'disk-full') {
    return new AppError('SERVICE_UNAVAILABLE', "The store's disk is full: nothing can be written until space is freed; reading still works", {
      cause: error,
      headers: { 'Retry-After': '60' },
    });
  }
  if (failure === 'unreachable') {
    return new AppError('SERVICE_UNAVAILABLE', 'The database cannot be reached; try again shortly', { cause: error, headers: { 'Retry-After': '5' } });
  }
  return undefined;
}
