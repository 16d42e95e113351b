/**
 * The guarded fetcher's errors. Messages name hosts, addresses and status codes (they are meant
 * for logs) but never contain response bodies, credentials or full URLs; callers are told the
 * kind of failure by describeFetchFailure, which leaves out resolved addresses.
 */
import { STATUS_CODES } from 'node:http';
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
  /** What was refused, fit to show the caller: the host name as written ('address'), the scheme ('scheme'). */
  readonly subject?: string;

  constructor(
    readonly reason: FetchRefusedReason,
    message: string,
    options: { cause?: unknown; addressClass?: AddressClass; subject?: string } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'FetchRefusedError';
    if (options.addressClass) this.addressClass = options.addressClass;
    if (options.subject !== undefined) this.subject = options.subject;
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
  /** The connection could not be made, or failed before the response. */
  | 'network'
  /** The connection failed or closed before the body was complete. */
  | 'truncated'
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
  /**
   * What failed, fit to show the caller: the host name ('dns'), the media type ('content-type';
   * absent when the header is malformed or missing), the content coding ('encoding'); 'file'
   * for a 'too-large' binary body (whose limit is KB_MAX_FILE_BYTES).
   */
  readonly subject?: string;
  /** 'too-large': the limit that was exceeded, when it is not the fetch's maxBytes. */
  readonly limit?: number;

  constructor(
    readonly reason: FetchFailedReason,
    message: string,
    options: { cause?: unknown; status?: number; subject?: string; limit?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'FetchFailedError';
    if (options.status !== undefined) this.status = options.status;
    if (options.subject !== undefined) this.subject = options.subject;
    if (options.limit !== undefined) this.limit = options.limit;
  }
}

/** The limits a fetch ran under, for describeFetchFailure. */
export interface FetchLimits {
  allowPrivate: boolean;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  accept: readonly string[];
}

const ADDRESS_KINDS: Record<AddressClass, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  cgnat: 'a shared (carrier-grade NAT) address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  unspecified: 'an unspecified address',
  documentation: 'a documentation address',
  benchmark: 'a benchmarking address',
  reserved: 'a reserved address',
  metadata: 'a cloud metadata address',
  invalid: 'not a usable address',
};

/** Connection errors a caller can act on, by Node's error code. */
const CONNECTION_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing accepts connections at that address and port',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection reset by the server',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network of the host cannot be reached',
  ETIMEDOUT: 'the connection timed out',
};

/** A text that came from the remote side or the caller, shortened and quoted. */
function quoted(text: string | undefined): string {
  return JSON.stringify((text ?? '').slice(0, 100));
}

function bytes(n: number): string {
  const mb = 1024 * 1024;
  return n % mb === 0 ? `${n / mb} MB (${n} bytes)` : `${n} bytes`;
}

function errorCode(error: Error): string | undefined {
  const code = (error.cause as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,60}$/.test(code) ? code : undefined;
}

/**
 * What the caller of a refused or failed fetch is told: the kind of failure in words, with what
 * the caller can act on (the remote status, the limit, the media type, the setting that allows
 * private addresses). Never a resolved address, a response body or a server-side detail.
 */
export function describeFetchFailure(error: FetchRefusedError | FetchFailedError, limits: FetchLimits): string {
  if (error instanceof FetchRefusedError) {
    switch (error.reason) {
      case 'address': {
        const kind = ADDRESS_KINDS[error.addressClass ?? 'invalid'];
        const never = error.addressClass === 'metadata' || error.addressClass === 'invalid' || limits.allowPrivate;
        return (
          `address not allowed: ${quoted(error.subject)} is, or resolves to, ${kind}; ` +
          (never
            ? 'such addresses are never fetched'
            : 'only public addresses are fetched unless KB_ALLOW_PRIVATE_URLS=true is set on the server')
        );
      }
      case 'scheme':
        return `a redirect led to the scheme ${quoted(error.subject)}: only http and https URLs are fetched`;
      case 'credentials':
        return 'the URL, or a redirect, carries a user name or password (user:password@), which is not sent';
    }
  }
  switch (error.reason) {
    case 'status': {
      const status = error.status ?? 0;
      return `the server answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
    }
    case 'timeout':
      return `timeout: the page did not arrive within ${limits.timeoutMs / 1000} s`;
    case 'too-large':
      return error.subject === 'file'
        ? `too large: the file is larger than the limit of ${bytes(error.limit ?? limits.maxBytes)} (KB_MAX_FILE_BYTES)`
        : `too large: the page is larger than the limit of ${bytes(error.limit ?? limits.maxBytes)}`;
    case 'content-type':
      return error.subject === undefined
        ? `unsupported content: the page has no usable Content-Type and is not text (accepted: ${limits.accept.join(', ')})`
        : `unsupported content type ${quoted(error.subject)} (accepted: ${limits.accept.join(', ')})`;
    case 'redirects':
      return `too many redirects: more than ${limits.maxRedirects}`;
    case 'redirect-location':
      return 'a redirect has a Location that is not a valid URL';
    case 'dns':
      return `name not found: ${quoted(error.subject)} could not be resolved (DNS)`;
    case 'network': {
      const code = errorCode(error);
      return code === undefined ? 'the connection failed' : (CONNECTION_FAILURES[code] ?? `the connection failed (${code})`);
    }
    case 'truncated':
      return 'the connection closed before the whole page was received';
    case 'tls': {
      const code = errorCode(error);
      return `the TLS handshake or certificate check failed${code === undefined ? '' : ` (${code})`}`;
    }
    case 'encoding':
      return error.subject === undefined
        ? 'the page is encoded with more content codings than are read'
        : `unsupported Content-Encoding ${quoted(error.subject)}`;
    case 'decode':
      return 'the compressed page could not be decompressed';
    case 'aborted':
      return 'the fetch was cancelled';
  }
}
