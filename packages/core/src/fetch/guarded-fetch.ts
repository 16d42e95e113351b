/**
 * guardedFetch: GET a web page on a caller's behalf without letting the caller reach the
 * service's own network (SSRF). Every hop's host is resolved once, every resolved address is
 * classified and must be public (unless allowPrivate), and the connection is made to exactly the
 * addresses that were checked: http(s).request gets a `lookup` that returns them, so there is no
 * second DNS query to rebind, while the Host header, TLS SNI and the certificate check keep the
 * host name.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressFamily, classifyAddress, parseHostAddress, type AddressClass } from './address.ts';
import { ACCEPT_ENCODING, createDecoders, readBody } from './body.ts';
import { decodeBody, parseContentType, sniffMediaType, type ContentType } from './content.ts';
import { FetchFailedError, FetchRefusedError, InvalidUrlError } from './errors.ts';
import { untilAborted } from '../abort.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface GuardedFetchOptions {
  /** KB_ALLOW_PRIVATE_URLS: lifts the address rule (intranets, tests). Cloud metadata stays refused. */
  allowPrivate: boolean;
  /** Cap on the decoded body, and on the bytes received (default 10 MB). */
  maxBytes: number;
  /** Total time for the whole fetch, DNS, redirects and body included (default 15 s). */
  timeoutMs: number;
  /** Default 5. */
  maxRedirects: number;
  /** Media types accepted, compared without parameters, e.g. ['text/html', 'text/plain']. */
  accept: readonly string[];
  /**
   * Accepted media types whose body is a file, returned as bytes (`bytes`, with an empty `body`)
   * rather than decoded, e.g. ['application/pdf']. A body without a Content-Type that is not text
   * is taken as application/octet-stream when that is one of them.
   */
  binaryTypes?: readonly string[];
  /** Cap on a binary body (default maxBytes): files have a limit of their own (KB_MAX_FILE_BYTES). */
  maxBinaryBytes?: number;
  userAgent?: string;
  /**
   * Validators from an earlier fetch of the same URL: sent as If-None-Match / If-Modified-Since,
   * and a 304 answer is returned as a page with `notModified` and an empty body.
   */
  conditional?: { etag?: string | undefined; lastModified?: string | undefined };
  /** Injectable resolver (tests); default dns.promises.lookup(host, { all: true, verbatim: true }). */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  signal?: AbortSignal;
}

export interface FetchedPage {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** Media type, lower-case, without parameters. */
  contentType: string;
  /** The encoding the body was decoded with (WHATWG name: utf-8, windows-1252, ...). */
  charset?: string;
  /** The decoded text (empty for a binary type). */
  body: string;
  /** The body as received, for a type in `binaryTypes`. */
  bytes?: Uint8Array;
  /** The server answered 304 to a conditional request: the body is empty, the page unchanged. */
  notModified?: boolean;
  /** The response's validators, for a later conditional request. */
  etag?: string;
  lastModified?: string;
  /** Every URL fetched before the final one (redirects), in order. */
  redirectedFrom?: string[];
}

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_USER_AGENT = 'kb-service-fetch/1';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const LOCALHOST_ADDRESSES: ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/** One address a hop would connect to, as the address policy sees it. */
export interface AddressCandidate {
  hostname: string;
  address: string;
  addressClass: AddressClass;
  allowPrivate: boolean;
}

/** Whether the fetcher may connect to an address. */
export type AddressPolicy = (candidate: AddressCandidate) => boolean;

/** Public addresses always; any other class only with allowPrivate, and cloud metadata never. */
export const defaultAddressPolicy: AddressPolicy = ({ addressClass, allowPrivate }) => {
  if (addressClass === 'public') return true;
  if (addressClass === 'metadata' || addressClass === 'invalid') return false;
  return allowPrivate;
};

async function defaultLookup(hostname: string): Promise<ResolvedAddress[]> {
  const results = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return results.map((r) => ({ address: r.address, family: r.family === 6 ? 6 : 4 }));
}

/** Parse the caller's URL: InvalidUrlError unless it is an absolute http(s) URL. */
function parseRequestUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch (error) {
    throw new InvalidUrlError('The URL is malformed', { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidUrlError(`Unsupported URL scheme ${url.protocol.slice(0, 20)} (only http and https)`);
  }
  return url;
}

function checkUrl(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusedError('scheme', `Refused a redirect to the scheme ${url.protocol.slice(0, 20)}`, { subject: url.protocol.slice(0, 20) });
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchRefusedError('credentials', `Refused a URL with credentials for ${url.hostname}`);
  }
}

function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

/** A hop's checked connection target. */
interface Target {
  /** What http(s).request connects to: the canonical IP literal, or the host name (with lookup). */
  connectHost: string;
  /** Host name for SNI and the certificate check; undefined for IP literals. */
  servername: string | undefined;
  hostHeader: string;
  /** The checked addresses; the only ones the connection may use. */
  addresses: ResolvedAddress[];
}

async function resolveTarget(
  url: URL,
  options: GuardedFetchOptions,
  policy: AddressPolicy,
  signal: AbortSignal,
): Promise<Target> {
  checkUrl(url);
  const port = url.port === '' ? '' : `:${url.port}`;
  const literal = parseHostAddress(url.hostname);
  let hostname: string;
  let resolved: ResolvedAddress[];
  if (literal !== null) {
    hostname = literal;
    resolved = [{ address: literal, family: addressFamily(literal) }];
  } else {
    // A trailing dot names the same host (localhost. is localhost); resolve, connect and send without it.
    hostname = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
    if (hostname === '' || hostname.endsWith('.')) throw new FetchFailedError('dns', 'The URL has an empty host name', { subject: url.hostname });
    if (isLocalhostName(hostname)) {
      // RFC 6761: localhost names are loopback whatever a resolver says.
      resolved = LOCALHOST_ADDRESSES;
    } else {
      const lookup = options.lookup ?? defaultLookup;
      try {
        resolved = await untilAborted(lookup(hostname), signal);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw new FetchFailedError('dns', `Could not resolve ${hostname}`, { cause: error, subject: hostname });
      }
      if (resolved.length === 0) throw new FetchFailedError('dns', `${hostname} has no addresses`, { subject: hostname });
    }
  }

  const addresses: ResolvedAddress[] = [];
  for (const entry of resolved) {
    const address = parseHostAddress(entry.address);
    if (address === null) throw new FetchFailedError('dns', `The resolver returned a malformed address for ${hostname}`, { subject: hostname });
    const addressClass = classifyAddress(address);
    if (!policy({ hostname, address, addressClass, allowPrivate: options.allowPrivate })) {
      const what = literal !== null ? `the ${addressClass} address ${address}` : `${hostname}: it resolves to ${address} (${addressClass})`;
      throw new FetchRefusedError('address', `Refused to fetch from ${what}`, { addressClass, subject: hostname });
    }
    if (!addresses.some((a) => a.address === address)) addresses.push({ address, family: addressFamily(address) });
  }

  const hostHeader = (literal !== null && addressFamily(literal) === 6 ? `[${literal}]` : hostname) + port;
  return {
    connectHost: hostname,
    servername: literal === null ? hostname : undefined,
    hostHeader,
    addresses,
  };
}

/** A lookup for http(s).request that answers with the pre-checked addresses and never asks DNS. */
function pinnedLookup(target: Target): LookupFunction {
  return (hostname, options, callback) => {
    if (hostname !== target.connectHost) {
      const error: NodeJS.ErrnoException = new Error(`Unexpected lookup of ${hostname}`);
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
      return;
    }
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const candidates = family === 4 || family === 6 ? target.addresses.filter((a) => a.family === family) : target.addresses;
    if (options.all) {
      callback(null, candidates.map((a) => ({ address: a.address, family: a.family })));
      return;
    }
    const first = candidates[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error(`No IPv${String(family)} address for ${hostname}`);
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
      return;
    }
    callback(null, first.address, first.family);
  };
}

function networkError(error: unknown): FetchFailedError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const tls =
    typeof code === 'string' &&
    (code.startsWith('ERR_TLS') ||
      code.startsWith('ERR_SSL') ||
      code.includes('CERT') ||
      code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ||
      code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY');
  const detail = typeof code === 'string' ? ` (${code})` : '';
  return tls
    ? new FetchFailedError('tls', `TLS handshake or certificate check failed${detail}`, { cause: error })
    : new FetchFailedError('network', `The request failed${detail}`, { cause: error });
}

function sendRequest(url: URL, target: Target, options: GuardedFetchOptions, signal: AbortSignal): Promise<http.IncomingMessage> {
  const isHttps = url.protocol === 'https:';
  const requestOptions: https.RequestOptions = {
    protocol: url.protocol,
    host: target.connectHost,
    port: url.port === '' ? (isHttps ? 443 : 80) : Number(url.port),
    method: 'GET',
    path: `${url.pathname}${url.search}`,
    headers: {
      host: target.hostHeader,
      'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
      accept: options.accept.join(', '),
      'accept-encoding': ACCEPT_ENCODING,
      connection: 'close',
      ...(options.conditional?.etag ? { 'if-none-match': options.conditional.etag } : {}),
      ...(options.conditional?.lastModified ? { 'if-modified-since': options.conditional.lastModified } : {}),
    },
    // A fresh agent per request: no pooled socket connected for another host or check.
    agent: false,
    lookup: pinnedLookup(target),
  };
  if (target.servername !== undefined) requestOptions.servername = target.servername;

  return new Promise<http.IncomingMessage>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const request = (isHttps ? https.request : http.request)(requestOptions);
    const onAbort = (): void => {
      reject(signal.reason);
      request.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    request.on('response', (response) => {
      signal.removeEventListener('abort', onAbort);
      resolve(response);
    });
    request.on('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(signal.aborted ? signal.reason : networkError(error));
    });
    request.end();
  });
}

function nextUrl(current: URL, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, current);
  } catch (error) {
    throw new FetchFailedError('redirect-location', 'A redirect has an invalid Location', { cause: error });
  }
  // As browsers do: a Location without a fragment keeps the current one.
  if (next.hash === '' && current.hash !== '') next.hash = current.hash;
  return next;
}

function isAccepted(mediaType: string, accept: readonly string[]): boolean {
  return accept.some((type) => type.toLowerCase() === mediaType);
}

async function readPage(
  url: URL,
  response: http.IncomingMessage,
  options: GuardedFetchOptions,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const status = response.statusCode ?? 0;
  const validators = {
    ...(typeof response.headers.etag === 'string' && response.headers.etag.length <= 1024 ? { etag: response.headers.etag } : {}),
    ...(typeof response.headers['last-modified'] === 'string' && response.headers['last-modified'].length <= 100
      ? { lastModified: response.headers['last-modified'] }
      : {}),
  };
  if (status === 304 && (options.conditional?.etag || options.conditional?.lastModified)) {
    response.resume();
    return { url: url.href, status, contentType: '', body: '', notModified: true, ...validators };
  }
  if (status < 200 || status > 299) {
    throw new FetchFailedError('status', `The server answered ${status}`, { status });
  }
  const header = response.headers['content-type'];
  let contentType: ContentType | null = parseContentType(header);
  if (contentType && !isAccepted(contentType.mediaType, options.accept)) {
    throw new FetchFailedError('content-type', `Unaccepted content type ${contentType.mediaType.slice(0, 100)}`, {
      subject: contentType.mediaType.slice(0, 100),
    });
  }
  if (!contentType && header !== undefined && header.trim() !== '') {
    throw new FetchFailedError('content-type', 'Malformed Content-Type header');
  }
  const binary = (type: string) => options.binaryTypes?.some((t) => t.toLowerCase() === type) ?? false;
  // Without a type, the body decides, and it may be a file: the larger of the two caps applies until it is known.
  const isFile = contentType !== null && binary(contentType.mediaType);
  const maxBytes =
    contentType === null && binary('application/octet-stream') ? Math.max(options.maxBytes, options.maxBinaryBytes ?? 0) : isFile ? (options.maxBinaryBytes ?? options.maxBytes) : options.maxBytes;
  const tooLarge = { limit: maxBytes, ...(isFile ? { subject: 'file' } : {}) };
  const length = response.headers['content-length'];
  if (length !== undefined && Number(length) > maxBytes) {
    throw new FetchFailedError('too-large', `Content-Length ${Number(length)} exceeds ${maxBytes} bytes`, tooLarge);
  }

  let bytes: Uint8Array;
  try {
    bytes = await readBody(response, createDecoders(response.headers['content-encoding']), { maxBytes, signal });
  } catch (error) {
    if (error instanceof FetchFailedError && error.reason === 'too-large') throw new FetchFailedError('too-large', error.message, tooLarge);
    throw error;
  }
  if (!contentType) {
    const sniffed = sniffMediaType(bytes);
    if (sniffed === null && binary('application/octet-stream')) {
      contentType = { mediaType: 'application/octet-stream' };
    } else if (sniffed === null || !isAccepted(sniffed, options.accept)) {
      throw new FetchFailedError('content-type', 'No Content-Type, and the body is not an accepted kind of text');
    } else {
      contentType = { mediaType: sniffed };
      if (bytes.length > options.maxBytes) throw new FetchFailedError('too-large', `The text exceeds ${options.maxBytes} bytes`, { limit: options.maxBytes });
    }
  }
  if (binary(contentType.mediaType)) {
    return { url: url.href, status, contentType: contentType.mediaType, body: '', bytes, ...validators };
  }
  const { text, charset } = decodeBody(bytes, contentType);
  return { url: url.href, status, contentType: contentType.mediaType, charset, body: text, ...validators };
}

function validateOptions(options: GuardedFetchOptions): void {
  const positive = (n: number): boolean => Number.isFinite(n) && n > 0;
  if (!positive(options.maxBytes)) throw new RangeError('maxBytes must be a positive number');
  if (!positive(options.timeoutMs)) throw new RangeError('timeoutMs must be a positive number');
  if (!Number.isInteger(options.maxRedirects) || options.maxRedirects < 0) {
    throw new RangeError('maxRedirects must be a non-negative integer');
  }
}

/**
 * guardedFetch with another address policy. Not part of the module's exports: the tests use it
 * to let a first hop reach a loopback server while the default rule judges every other hop.
 */
export async function guardedFetchWithPolicy(
  input: string,
  options: GuardedFetchOptions,
  policy: AddressPolicy,
): Promise<FetchedPage> {
  validateOptions(options);
  let url = parseRequestUrl(input);
  if (options.signal?.aborted) throw new FetchFailedError('aborted', 'The fetch was aborted');

  const controller = new AbortController();
  const { signal } = controller;
  const timer = setTimeout(
    () => controller.abort(new FetchFailedError('timeout', `The fetch took longer than ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  const onCallerAbort = (): void => controller.abort(new FetchFailedError('aborted', 'The fetch was aborted'));
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });

  const visited: string[] = [];
  try {
    for (let redirects = 0; ; redirects++) {
      const target = await resolveTarget(url, options, policy, signal);
      const response = await sendRequest(url, target, options, signal);
      try {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        if (REDIRECT_STATUSES.has(status) && location !== undefined) {
          response.destroy();
          if (redirects >= options.maxRedirects) {
            throw new FetchFailedError('redirects', `More than ${options.maxRedirects} redirects`);
          }
          visited.push(url.href);
          url = nextUrl(url, location);
          continue;
        }
        const page = await readPage(url, response, options, signal);
        return visited.length > 0 ? { ...page, redirectedFrom: visited } : page;
      } catch (error) {
        response.destroy();
        throw error;
      }
    }
  } catch (error) {
    if (signal.aborted && !(error instanceof FetchFailedError || error instanceof FetchRefusedError)) throw signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}

/**
 * GET `input` on a caller's behalf under the rules in GuardedFetchOptions: http(s) only, no
 * credentials, public addresses only (checked on every hop, connected to as checked), at most
 * maxRedirects redirects, a 2xx status, an accepted media type, maxBytes decoded bytes and
 * timeoutMs in all. A response without Content-Type is sniffed: text/html if it starts with '<',
 * text/plain otherwise, refused if binary; either must still be in `accept`.
 */
export function guardedFetch(input: string, options: GuardedFetchOptions): Promise<FetchedPage> {
  return guardedFetchWithPolicy(input, options, defaultAddressPolicy);
}
