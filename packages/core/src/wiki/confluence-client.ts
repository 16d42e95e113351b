/**
 * A read-only client for the Confluence Cloud REST API v2, as used by wiki space imports: look a
 * space up by key, then list every current page of it with its storage-format body.
 *
 * Every request is a GET, so every transient failure (429, 408, 5xx, network errors, timeouts) is
 * retried: Retry-After is honoured when the server sends it, otherwise the wait is exponential
 * backoff with full jitter. Credentials never appear in an error message or a log line: messages
 * name the method, the path (never the query) and the status, and any text taken from a response
 * body is scrubbed of the token and the Authorization value first.
 */
import { z } from 'zod';
import { SERVICE_VERSION } from '../version.ts';
import { untilAborted } from '../abort.ts';

export interface ConfluenceClientOptions {
  /** WIKI_BASE_URL: the site, with or without the /wiki suffix (https://acme.atlassian.net[/wiki]). */
  baseUrl: string;
  /** WIKI_EMAIL: the Atlassian account the API token belongs to. */
  email: string;
  /** WIKI_API_TOKEN. */
  apiToken: string;
  /** Per request, connection and the whole body included. Default 15 s. */
  timeoutMs?: number;
  /** Cap on one response body, enforced while it streams in. Default 32 MiB. */
  maxBytes?: number;
  /** `limit` of page listings, 1 to 250. Default 100. */
  pageLimit?: number;
  /** Attempts per request, the first one included. Default 6. */
  maxAttempts?: number;
  /**
   * Most pages one listing may return before it is taken for a runaway and stopped.
   * Default {@link MAX_LISTED_PAGES}.
   */
  maxPages?: number;
  /** Default: the global fetch, looked up at call time (so test interceptors see the requests). */
  fetch?: typeof globalThis.fetch;
  /** Waits between attempts; rejects with the signal's reason when it aborts. Injected by tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  logger?: { warn(obj: object, msg: string): void; debug?(obj: object, msg: string): void };
  /** Told of each failed attempt that will be tried again (a job shows it as its last error). */
  onRetry?: (message: string) => void;
}

export interface WikiSpace {
  id: string;
  key: string;
  name: string;
}

export interface WikiPage {
  id: string;
  title: string;
  /** The parent content's id; null for a page at the top of the space. */
  parentId: string | null;
  /** Version number, incremented by every edit. */
  version: number;
  /** The body in Confluence storage format (XHTML). */
  body: string;
  /** Absolute link to the page in Confluence's web UI. */
  url: string;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
export const DEFAULT_PAGE_LIMIT = 100;
/** The largest `limit` Confluence accepts on page listings. */
export const MAX_PAGE_LIMIT = 250;
export const DEFAULT_MAX_ATTEMPTS = 6;
/** A listing longer than this is taken for a server that never stops paginating. */
export const MAX_LISTED_PAGES = 1_000_000;
/** First backoff ceiling; doubles with every failed attempt. */
const RETRY_BASE_DELAY_MS = 1_000;
/** Ceiling of one backoff wait without Retry-After. */
const RETRY_MAX_DELAY_MS = 30_000;
/** Ceiling of one wait asked for by Retry-After. */
const RETRY_AFTER_MAX_MS = 60_000;
/** How much of an error response is read for its message. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;
const USER_AGENT = `kb-service-wiki-import/${SERVICE_VERSION}`;

/** A failed wiki operation. Messages never contain credentials. */
export class WikiError extends Error {
  /** Whether the same call may succeed later (rate limit, outage, network), so a job may be retried. */
  readonly transient: boolean;

  constructor(message: string, options: { transient: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WikiError';
    this.transient = options.transient;
  }
}

/** Confluence refused the credentials (401) or the account may not read what was asked (403). */
export class WikiAuthError extends WikiError {
  readonly status: 401 | 403;

  constructor(message: string, status: 401 | 403) {
    super(message, { transient: false });
    this.name = 'WikiAuthError';
    this.status = status;
  }
}

/** Confluence failed, answered with an error, or answered with something this client cannot use. */
export class WikiUpstreamError extends WikiError {
  /** HTTP status of the failing response, when there was one. */
  readonly status: number | undefined;

  constructor(message: string, options: { transient: boolean; status?: number | undefined; cause?: unknown }) {
    super(message, options);
    this.name = 'WikiUpstreamError';
    this.status = options.status;
  }
}

/** A response body over maxBytes; a listing can be asked again with a smaller limit. */
class ResponseTooLargeError extends WikiUpstreamError {}

/** The site root (without /wiki) and the wiki root (with it), from WIKI_BASE_URL. */
export interface WikiBaseUrl {
  /** Origin plus any path prefix, without /wiki and without a trailing slash. */
  site: string;
  /** `${site}/wiki`. */
  wikiBase: string;
}

/**
 * Normalises WIKI_BASE_URL. Accepts the site with or without /wiki and with trailing slashes; a
 * link pasted from the web UI (…/wiki/spaces/ENG/overview) is cut at its /wiki segment. Query and
 * fragment are dropped. Rejects non-http(s) URLs and URLs carrying user:password (credentials
 * belong in WIKI_EMAIL and WIKI_API_TOKEN). The value itself is never echoed in the error.
 */
export function normalizeWikiBaseUrl(base: string): WikiBaseUrl {
  let url: URL;
  try {
    url = new URL(base.trim());
  } catch {
    // The parser's error carries the input, which may hold credentials: not kept as a cause.
    throw new WikiError('WIKI_BASE_URL is not a valid URL (expected e.g. https://your-site.atlassian.net)', {
      transient: false,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WikiError(`WIKI_BASE_URL must be an http or https URL, not ${url.protocol.slice(0, 20)}`, {
      transient: false,
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw new WikiError('WIKI_BASE_URL must not contain credentials; set WIKI_EMAIL and WIKI_API_TOKEN instead', {
      transient: false,
    });
  }
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  const wikiAt = segments.findIndex((segment) => segment.toLowerCase() === 'wiki');
  const prefix = (wikiAt === -1 ? segments : segments.slice(0, wikiAt)).map((segment) => `/${segment}`).join('');
  const site = `${url.origin}${prefix}`;
  return { site, wikiBase: `${site}/wiki` };
}

/**
 * Milliseconds to wait from a Retry-After value: delta seconds, or an HTTP date (a date in the
 * past gives 0). Undefined when the value is missing or unusable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // Only something that looks like a date: Date.parse also accepts bare numbers such as "-1".
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Resolves after ms, or rejects with the signal's reason as soon as it aborts. */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function checkInteger(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new WikiError(`ConfluenceClient: ${name} must be an integer from ${min} to ${max}, got ${String(value)}`, {
      transient: false,
    });
  }
  return value;
}

/** The `rel="next"` target of a Link header (RFC 8288), if any. */
export function parseLinkNext(header: string | null): string | undefined {
  if (header === null) return undefined;
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const params = match[2] ?? '';
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return match[1];
  }
  return undefined;
}

const idSchema = z.union([z.string().min(1), z.number().int().nonnegative()]).transform(String);

const linksSchema = z
  .object({
    next: z.string().optional(),
    base: z.string().optional(),
  })
  .optional();

const spacesResponseSchema = z.object({
  results: z.array(
    z.object({
      id: idSchema,
      key: z.string(),
      name: z.string(),
    }),
  ),
});

const pageSchema = z.object({
  id: idSchema,
  status: z.string().optional(),
  title: z.string(),
  parentId: z
    .union([z.string(), z.number().int().nonnegative()])
    .nullish()
    .transform((value) => (value === null || value === undefined || value === '' ? null : String(value))),
  version: z.object({ number: z.number().int().nonnegative() }),
  body: z.object({ storage: z.object({ value: z.string() }) }),
  _links: z.object({ webui: z.string().optional() }).optional(),
});

const pagesResponseSchema = z.object({
  results: z.array(pageSchema),
  _links: linksSchema,
});

/** A successful response: its parsed JSON body and headers. */
interface JsonResponse {
  readonly body: unknown;
  readonly headers: Headers;
}

/** What went wrong in one attempt, to decide whether to try again. */
interface AttemptFailure {
  /** What happened, for messages: "HTTP 503", "timed out after 15000 ms", "network error (ECONNRESET)". */
  readonly detail: string;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
}

/** One attempt's result: a JSON response, a 404, or a failure worth another attempt. */
type AttemptResult =
  | { readonly kind: 'ok'; readonly response: JsonResponse }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'retry'; readonly failure: AttemptFailure };

/** Confluence Cloud REST v2, read-only: spaces and their pages. */
export class ConfluenceClient {
  /** Site root without /wiki. */
  readonly site: string;
  /** Site root with /wiki: the base of web UI links. */
  readonly wikiBase: string;

  readonly #origin: string;
  /** The site's path prefix ('' for a plain Atlassian site). */
  readonly #sitePath: string;
  readonly #authorization: string;
  /** Strings that must never leave this client: the token and the Authorization credentials. */
  readonly #secrets: string[];
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #pageLimit: number;
  readonly #maxAttempts: number;
  readonly #maxPages: number;
  readonly #fetch: typeof globalThis.fetch;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #logger: ConfluenceClientOptions['logger'];
  readonly #onRetry: ConfluenceClientOptions['onRetry'];

  constructor(options: ConfluenceClientOptions) {
    const { site, wikiBase } = normalizeWikiBaseUrl(options.baseUrl);
    if (typeof options.email !== 'string' || options.email.trim() === '') {
      throw new WikiError('WIKI_EMAIL is required: the Atlassian account the API token belongs to', {
        transient: false,
      });
    }
    if (typeof options.apiToken !== 'string' || options.apiToken.trim() === '') {
      throw new WikiError('WIKI_API_TOKEN is required: an Atlassian API token for WIKI_EMAIL', { transient: false });
    }
    this.site = site;
    this.wikiBase = wikiBase;
    const parsed = new URL(site);
    this.#origin = parsed.origin;
    this.#sitePath = parsed.pathname.replace(/\/+$/, '');

    const credentials = Buffer.from(`${options.email.trim()}:${options.apiToken.trim()}`, 'utf8').toString('base64');
    this.#authorization = `Basic ${credentials}`;
    this.#secrets = [options.apiToken, options.apiToken.trim(), credentials].filter((s) => s.length >= 4);

    this.#timeoutMs = checkInteger('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS, 1, 2_147_483_647);
    this.#maxBytes = checkInteger('maxBytes', options.maxBytes, DEFAULT_MAX_BYTES, 1, Number.MAX_SAFE_INTEGER);
    this.#pageLimit = checkInteger('pageLimit', options.pageLimit, DEFAULT_PAGE_LIMIT, 1, MAX_PAGE_LIMIT);
    this.#maxAttempts = checkInteger('maxAttempts', options.maxAttempts, DEFAULT_MAX_ATTEMPTS, 1, 100);
    this.#maxPages = checkInteger('maxPages', options.maxPages, MAX_LISTED_PAGES, 1, Number.MAX_SAFE_INTEGER);
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#sleep = options.sleep ?? abortableSleep;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger;
    this.#onRetry = options.onRetry;
  }

  /** The space with that key, or null when there is none (or the account cannot see it). */
  async getSpace(spaceKey: string, signal?: AbortSignal): Promise<WikiSpace | null> {
    const key = spaceKey.trim();
    if (key === '' || key.includes(',')) {
      throw new WikiError('A Confluence space key must be non-empty and contain no comma', { transient: false });
    }
    const url = this.#apiUrl('/spaces', { keys: key });
    const response = await this.#getJson(url, signal);
    if (response === null) return null;
    const { results } = this.#validate(spacesResponseSchema, response.body, url);
    const space = results.find((candidate) => candidate.key === key) ?? results[0];
    return space === undefined ? null : { id: space.id, key: space.key, name: space.name };
  }

  /**
   * Every current page of the space with its storage body: one array per listing response, in
   * the server's order, following the next link (body `_links.next`, else the Link header) until
   * there is none. A short response is not the end; only a missing next link is.
   *
   * A response over maxBytes is asked again with half the limit, down to 1. A next link already
   * followed, a next link to another host, or more than maxPages pages stop the listing with a
   * WikiUpstreamError.
   */
  async *listPages(spaceId: string, signal?: AbortSignal): AsyncGenerator<WikiPage[]> {
    const id = spaceId.trim();
    if (id === '') throw new WikiError('A Confluence space id is required', { transient: false });

    let limit = this.#pageLimit;
    let url: URL | undefined = this.#apiUrl(`/spaces/${encodeURIComponent(id)}/pages`, {
      'body-format': 'storage',
      status: 'current',
      limit: String(limit),
    });
    const followed = new Set<string>([url.href]);
    let pages = 0;
    let responses = 0;

    while (url !== undefined) {
      let response: JsonResponse | null;
      for (;;) {
        url.searchParams.set('limit', String(limit));
        try {
          response = await this.#getJson(url, signal);
          break;
        } catch (error) {
          if (!(error instanceof ResponseTooLargeError) || limit <= 1) throw error;
          const smaller = Math.max(1, Math.floor(limit / 2));
          this.#logger?.warn(
            { path: url.pathname, maxBytes: this.#maxBytes, limit, nextLimit: smaller },
            'Confluence page listing response too large; asking again with a smaller limit',
          );
          limit = smaller;
        }
      }
      if (response === null) {
        throw new WikiUpstreamError(
          `Confluence answered GET ${url.pathname} with HTTP 404: ` +
            'the space does not exist or the account cannot see it',
          { transient: false, status: 404 },
        );
      }

      const listing = this.#validate(pagesResponseSchema, response.body, url);
      responses++;
      pages += listing.results.length;
      if (pages > this.#maxPages || responses > this.#maxPages) {
        throw new WikiUpstreamError(
          `Confluence listing ${url.pathname} returned more than ${this.#maxPages} pages; ` +
            'stopped it as a runaway listing',
          { transient: false },
        );
      }

      const linkBase = this.#linkBase(listing._links?.base);
      const batch = listing.results
        .filter((page) => page.status === undefined || page.status === 'current')
        .map((page): WikiPage => ({
          id: page.id,
          title: page.title,
          parentId: page.parentId,
          version: page.version.number,
          body: page.body.storage.value,
          url: this.#pageUrl(linkBase, page.id, page._links?.webui),
        }));

      const next = listing._links?.next ?? parseLinkNext(response.headers.get('link'));
      let nextUrl: URL | undefined;
      if (next !== undefined && next.trim() !== '') {
        nextUrl = this.#resolveNext(next.trim(), url);
        if (followed.has(nextUrl.href)) {
          throw new WikiUpstreamError(
            `Confluence listing ${url.pathname} returned a next link that was already followed ` +
              '(cursor loop); stopped it',
            { transient: false },
          );
        }
        followed.add(nextUrl.href);
      }

      yield batch;
      url = nextUrl;
    }
  }

  /** An API v2 URL on this site. */
  #apiUrl(path: string, query: Record<string, string>): URL {
    const url = new URL(`${this.site}/wiki/api/v2${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url;
  }

  /**
   * A next link as a URL on this site. Confluence sends it relative to the site origin
   * (/wiki/api/v2/…); behind a path prefix the prefix is added. Absolute links must stay on the
   * site's origin: the credentials go with every request.
   */
  #resolveNext(next: string, current: URL): URL {
    let resolved: URL;
    try {
      if (next.startsWith('/') && !next.startsWith('//')) {
        const path =
          this.#sitePath !== '' && !next.startsWith(`${this.#sitePath}/`) ? `${this.#sitePath}${next}` : next;
        resolved = new URL(`${this.#origin}${path}`);
      } else {
        resolved = new URL(next, `${this.wikiBase}/`);
      }
    } catch {
      throw new WikiUpstreamError(`Confluence listing ${current.pathname} returned a malformed next link`, {
        transient: false,
      });
    }
    if (resolved.origin !== this.#origin) {
      throw new WikiUpstreamError(
        `Confluence listing ${current.pathname} returned a next link to another host; not following it`,
        { transient: false },
      );
    }
    return resolved;
  }

  /** The web UI base from a response's `_links.base`, or the configured one. */
  #linkBase(base: string | undefined): string {
    if (base !== undefined) {
      try {
        const url = new URL(base);
        if (url.protocol === 'http:' || url.protocol === 'https:') return url.href.replace(/\/+$/, '');
      } catch {
        // fall through to the configured base
      }
    }
    return this.wikiBase;
  }

  #pageUrl(base: string, id: string, webui: string | undefined): string {
    if (webui !== undefined && webui !== '') {
      if (/^https?:\/\//i.test(webui)) return webui;
      return `${base}${webui.startsWith('/') ? '' : '/'}${webui}`;
    }
    return `${base}/pages/viewpage.action?pageId=${encodeURIComponent(id)}`;
  }

  #validate<T extends z.ZodType>(schema: T, body: unknown, url: URL): z.output<T> {
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.length === 0 ? '(root)' : issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new WikiUpstreamError(`Confluence answered GET ${url.pathname} with an unexpected response: ${issues}`, {
      transient: false,
    });
  }

  /**
   * GET a JSON document, with retries; null for a 404. Throws WikiAuthError for 401/403,
   * ResponseTooLargeError for a body over maxBytes, WikiUpstreamError otherwise, and the signal's
   * reason when it aborts.
   */
  async #getJson(url: URL, signal: AbortSignal | undefined): Promise<JsonResponse | null> {
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const result = await this.#attempt(url, signal);
      if (result.kind === 'ok') return result.response;
      if (result.kind === 'not-found') return null;

      const { failure } = result;
      if (attempt >= this.#maxAttempts) {
        const attempts = `${attempt} attempt${attempt === 1 ? '' : 's'}`;
        throw new WikiUpstreamError(
          `Confluence request GET ${url.pathname} failed after ${attempts}: ${failure.detail}`,
          { transient: true, status: failure.status },
        );
      }
      const delayMs = this.#delay(attempt, failure.retryAfterMs);
      this.#logger?.warn(
        {
          path: url.pathname,
          status: failure.status,
          detail: failure.detail,
          attempt,
          maxAttempts: this.#maxAttempts,
          delayMs,
        },
        'Confluence request failed; retrying',
      );
      this.#onRetry?.(
        `Confluence request GET ${url.pathname} failed (attempt ${attempt} of ${this.#maxAttempts}, retrying): ${failure.detail}`,
      );
      await this.#sleep(delayMs, signal);
    }
  }

  /** The wait before attempt `attempt + 1`. */
  #delay(attempt: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, RETRY_AFTER_MAX_MS);
    const ceiling = Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2 ** (attempt - 1));
    return Math.floor(this.#random() * ceiling);
  }

  async #attempt(url: URL, signal: AbortSignal | undefined): Promise<AttemptResult> {
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', forwardAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('timeout'));
    }, this.#timeoutMs);
    const started = Date.now();

    let response: Response | undefined;
    try {
      response = await untilAborted(
        this.#fetch(url, {
          method: 'GET',
          headers: { Authorization: this.#authorization, Accept: 'application/json', 'User-Agent': USER_AGENT },
          redirect: 'manual',
          signal: controller.signal,
        }),
        controller.signal,
      );
      const { status } = response;
      this.#logger?.debug?.({ path: url.pathname, status, ms: Date.now() - started }, 'Confluence response');

      if (status >= 200 && status < 300) {
        const body = await this.#readBody(
          response,
          this.#maxBytes,
          controller.signal,
          () =>
            new ResponseTooLargeError(
              `Confluence answered GET ${url.pathname} with a body larger than ${this.#maxBytes} bytes (maxBytes)`,
              { transient: false, status },
            ),
        );
        return { kind: 'ok', response: { body: this.#parseJson(body, response, url), headers: response.headers } };
      }

      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      const detail = await this.#errorDetail(response, controller.signal);
      const described = `HTTP ${status}${detail === '' ? '' : ` (${detail})`}`;
      if (status === 401) {
        throw new WikiAuthError(
          `Confluence refused the credentials (401) for GET ${url.pathname}: check WIKI_EMAIL and WIKI_API_TOKEN ` +
            '(an API token created for that Atlassian account) and that WIKI_BASE_URL is the right site',
          401,
        );
      }
      if (status === 403) {
        throw new WikiAuthError(
          `Confluence denied access (403) to GET ${url.pathname}: the account in WIKI_EMAIL lacks permission to ` +
            'read the space (or the API token lacks read scopes); grant it access to the space in Confluence',
          403,
        );
      }
      if (status === 404) return { kind: 'not-found' };
      if (status === 408 || status === 429 || status >= 500) {
        return { kind: 'retry', failure: { detail: described, status, retryAfterMs } };
      }
      if (status >= 300 && status < 400) {
        throw new WikiUpstreamError(
          `Confluence answered GET ${url.pathname} with a redirect (HTTP ${status}); set WIKI_BASE_URL to the site's ` +
            'current address',
          { transient: false, status },
        );
      }
      throw new WikiUpstreamError(`Confluence answered GET ${url.pathname} with ${described}`, {
        transient: false,
        status,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof WikiError) throw error;
      // The body of a failed attempt is not needed; release the connection.
      response?.body?.cancel().catch(() => undefined);
      if (timedOut) {
        return {
          kind: 'retry',
          failure: { detail: `timed out after ${this.#timeoutMs} ms`, status: undefined, retryAfterMs: undefined },
        };
      }
      return {
        kind: 'retry',
        failure: { detail: this.#describeNetworkError(error, url), status: undefined, retryAfterMs: undefined },
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    }
  }

  /** The body, read while it streams in; rejects with tooLarge() as soon as it passes maxBytes. */
  async #readBody(response: Response, maxBytes: number, signal: AbortSignal, tooLarge: () => Error): Promise<Buffer> {
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (response.body === null) return Buffer.alloc(0);

    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let received = 0;
    try {
      for (;;) {
        const { done, value } = await untilAborted(reader.read(), signal);
        if (done) break;
        received += value.byteLength;
        if (received > maxBytes) throw tooLarge();
        chunks.push(value);
      }
    } catch (error) {
      reader.cancel().catch(() => undefined);
      throw error;
    }
    return Buffer.concat(chunks, received);
  }

  #parseJson(body: Buffer, response: Response, url: URL): unknown {
    try {
      return JSON.parse(body.toString('utf8')) as unknown;
    } catch {
      // The parser's message quotes the body, which could echo anything: not kept as a cause.
      const type = (response.headers.get('content-type') ?? 'no content type').split(';')[0]?.trim().slice(0, 60);
      throw new WikiUpstreamError(
        `Confluence answered GET ${url.pathname} with a body that is not valid JSON (${type}, ${body.length} bytes); ` +
          'check that WIKI_BASE_URL is the Confluence site',
        { transient: false, status: response.status },
      );
    }
  }

  /** A short, credential-free summary of an error response's body ('' when there is nothing useful). */
  async #errorDetail(response: Response, signal: AbortSignal): Promise<string> {
    let text: string;
    try {
      const body = await this.#readBody(response, ERROR_BODY_MAX_BYTES, signal, () => new Error('too large'));
      text = body.toString('utf8');
    } catch {
      return '';
    }
    let detail = '';
    try {
      detail = describeErrorBody(JSON.parse(text) as unknown);
    } catch {
      // Not JSON (an HTML error page, say): not worth quoting.
    }
    detail = this.#redact(detail.replace(/\s+/g, ' ').trim());
    return detail.length > 200 ? `${detail.slice(0, 200)}…` : detail;
  }

  /** "network error: cannot reach wiki.example.com:443: ECONNREFUSED (connection refused)", as the host and the socket name it. */
  #describeNetworkError(error: unknown, url: URL): string {
    const code = networkErrorCode(error);
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error instanceof Error ? error : undefined;
    const reason = code === undefined ? (cause?.message ?? String(error)) : `${code}${NETWORK_CAUSES[code] ? ` (${NETWORK_CAUSES[code]})` : ''}`;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const text = this.#redact(`network error: cannot reach ${url.hostname}:${port}: ${reason}`);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  }

  #redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join('[redacted]');
    return out;
  }
}

/** Socket error codes, in words. */
const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed for now',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
  CERT_HAS_EXPIRED: 'certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate not trusted',
};

/** The socket's error code under fetch's "fetch failed": on its cause, or on the first of an AggregateError's errors (a host with several addresses). */
function networkErrorCode(error: unknown): string | undefined {
  const codeOf = (value: unknown): string | undefined => {
    if (!(value instanceof Error)) return undefined;
    const code = (value as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]{1,60}$/.test(code)) return code;
    const errors = (value as { errors?: unknown }).errors;
    return Array.isArray(errors) ? codeOf(errors[0]) : undefined;
  };
  return error instanceof Error ? (codeOf(error.cause) ?? codeOf(error)) : undefined;
}

/** The message of a Confluence error body: v2 `{ errors: [{ title, detail }] }` or v1 `{ message }`. */
function describeErrorBody(body: unknown): string {
  if (body === null || typeof body !== 'object') return '';
  const record = body as Record<string, unknown>;
  if (Array.isArray(record.errors)) {
    return record.errors
      .slice(0, 3)
      .map((item: unknown) => {
        if (item === null || typeof item !== 'object') return '';
        const { title, detail, code } = item as Record<string, unknown>;
        return [title, detail, code].filter((part) => typeof part === 'string' && part !== '').join(': ');
      })
      .filter((part) => part !== '')
      .join('; ');
  }
  for (const field of ['message', 'errorMessage', 'error']) {
    const value = record[field];
    if (typeof value === 'string') return value;
  }
  return '';
}
