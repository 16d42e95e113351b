/**
 * The guarded fetcher's errors. Messages name hosts, addresses and status codes (they are meant
 * for logs) but never contain response bodies, credentials or full URLs; the API shows callers a
 * generic message instead.
 */
import type { AddressClass } from './address.ts';

/** Malformed URL, or a scheme other than http/https. The API maps it to 400. */
export class InvalidUrlError extends Error {
  constructor(message = 'The URL must be an absolute http or https URL', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidUrlError';
  }
}

export type FetchRefusedReason =
  /** A redirect to a scheme other than http/https. */
  | 'scheme'
  /** The host is, or resolves to, an address that is not public (see classifyAddress). */
  | 'address'
  /** The URL carries userinfo (user:pass@). */
  | 'credentials';

/** The URL (or a redirect) is not allowed by policy: nothing was sent to that host. */
export class FetchRefusedError extends Error {
  /** Set for 'address': the class of the address that was refused. */
  readonly addressClass?: AddressClass;

  constructor(
    readonly reason: FetchRefusedReason,
    message: string,
    options: { cause?: unknown; addressClass?: AddressClass } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'FetchRefusedError';
    if (options.addressClass) this.addressClass = options.addressClass;
  }
}

export type FetchFailedReason =
  /** The final response was not 2xx (status is set). */
  | 'status'
  /** The whole fetch, redirects and body included, took longer than timeoutMs. */
  | 'timeout'
  /** Content-Length, the bytes received or the decoded body exceeded maxBytes. */
  | 'too-large'
  /** The media type is not one of `accept` (or is missing and the body looks binary). */
  | 'content-type'
  /** More than maxRedirects redirects. */
  | 'redirects'
  /** A redirect whose Location is not a valid URL. */
  | 'redirect-location'
  /** The host name could not be resolved. */
  | 'dns'
  /** Connection refused or reset, or the body ended early. */
  | 'network'
  /** The TLS handshake or certificate check failed. */
  | 'tls'
  /** An unsupported Content-Encoding. */
  | 'encoding'
  /** The body could not be decompressed. */
  | 'decode'
  /** options.signal was aborted. */
  | 'aborted';

/** The fetch was allowed but did not produce an acceptable page. */
export class FetchFailedError extends Error {
  readonly status?: number;

  constructor(
    readonly reason: FetchFailedReason,
    message: string,
    options: { cause?: unknown; status?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'FetchFailedError';
    if (options.status !== undefined) this.status = options.status;
  }
}
