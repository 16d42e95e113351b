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
