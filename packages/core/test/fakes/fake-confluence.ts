/**
 * A local stand-in for Confluence Cloud's REST API v2, on node:http and 127.0.0.1, for the
 * service's tests and benchmarks. It answers the calls a space import makes, in Confluence's
 * response shapes:
 *
 *   GET /wiki/api/v2/spaces?keys=A,B&ids=&limit=&cursor=
 *   GET /wiki/api/v2/spaces/:id
 *   GET /wiki/api/v2/spaces/:id/pages?body-format=storage&status=&limit=&cursor=
 *
 * Listings are ordered by page id and paginated with opaque cursors; the next page is announced
 * both in `_links.next` and in a `Link: <…>; rel="next"` header, as Confluence does. Requests
 * need HTTP Basic auth with the configured email and API token. `spaces` is live: tests may add,
 * edit or delete pages between (or during) listings. `fault()` injects rate limits, server
 * errors, slow answers, broken bodies and dropped connections.
 *
 * Nothing heavy is computed per request: one sort of the space's page ids and one
 * JSON.stringify of the response, so thousands of large pages are served quickly.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakePage {
  id: string;
  title: string;
  parentId: string | null;
  version: number;
  /** Storage-format XHTML. */
  body: string;
}

export interface FakeSpace {
  id: string;
  key: string;
  name: string;
  pages: FakePage[];
}

/** What the fake does instead of (or before) answering normally. */
export interface FakeFault {
  /** Answer with this status and a Confluence-style error body (or `body`, when given). */
  status?: number;
  /** Retry-After header value sent with the answer, e.g. '1' or an HTTP date. */
  retryAfter?: string;
  /** Wait this long first; then answer with the fault's status, or normally when it has none. */
  delayMs?: number;
  /** Send this body verbatim (status 200 unless `status` is set), e.g. malformed JSON. */
  body?: string;
  /** Content-Type for `body`. Default application/json. */
  contentType?: string;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Drop the connection without an answer (a network error for the client). */
  reset?: boolean;
}

export interface FakeRequest {
  method: string;
  /** Path and query, as received. */
  path: string;
  authorization: string | undefined;
}

export interface FakeConfluence {
  /** http://127.0.0.1:PORT (no /wiki): what WIKI_BASE_URL would be set to. */
  url: string;
  /** The credentials the fake accepts. */
  email: string;
  apiToken: string;
  /** Spaces by key. Live: changes show in the next response. */
  spaces: Map<string, FakeSpace>;
  /** Every request received, in order, faulted ones included. */
  requests: FakeRequest[];
  /**
   * Queues a fault for the next `times` requests whose path (with query) matches. Faults are
   * applied before authentication, in the order they were queued.
   */
  fault(match: (path: string) => boolean, fault: FakeFault, times?: number): void;
  close(): Promise<void>;
}

export interface FakeConfluenceOptions {
  /** Default {@link FAKE_CONFLUENCE_EMAIL}. */
  email?: string;
  /** Default {@link FAKE_CONFLUENCE_API_TOKEN}. */
  apiToken?: string;
  spaces?: FakeSpace[];
  /** Largest `limit` honoured; larger ones are clamped to it. Default 250, like Confluence. */
  pageLimitMax?: number;
}

export const FAKE_CONFLUENCE_EMAIL = 'importer@example.com';
export const FAKE_CONFLUENCE_API_TOKEN = 'fake-confluence-api-token';

const API_PREFIX = '/wiki/api/v2';
const DEFAULT_LIMIT = 25;
/** Fixed timestamps keep responses deterministic; a page's version time moves with its version. */
const CREATED_AT_MS = Date.UTC(2024, 0, 15, 9, 30, 0);
const AUTHOR_ID = '712020:00000000-0000-4000-8000-000000000001';

const ERROR_CODES: Record<number, string> = {
  400: 'INVALID_REQUEST_PARAMETER',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** Confluence v2's error body: `{ errors: [{ status, code, title, detail }] }`. */
function errorBody(status: number, detail: string | null = null): string {
  return JSON.stringify({
    errors: [
      {
        status,
        code: ERROR_CODES[status] ?? `HTTP_${status}`,
        title: http.STATUS_CODES[status] ?? 'Error',
        detail,
      },
    ],
  });
}

/** Orders ids the way Confluence does for numeric ids (shorter first), and any strings totally. */
function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An opaque cursor: base64 of the last id returned, shaped like Confluence's own. */
function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ id: lastId, contentOrder: 'id', contentOrderValue: lastId }), 'utf8').toString(
    'base64url',
  );
}

function decodeCursor(cursor: string): string | undefined {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (decoded !== null && typeof decoded === 'object' && 'id' in decoded && typeof decoded.id === 'string') {
      return decoded.id;
    }
  } catch {
    // fall through
  }
  return undefined;
}

/** Confluence's web UI slug: spaces as '+', the rest percent-encoded. */
function titleSlug(title: string): string {
  return encodeURIComponent(title).replace(/%20/g, '+');
}

/** A short link code like Confluence's /x/… tiny links: the id's little-endian bytes, base64url. */
function tinyCode(id: string): string {
  let n = /^\d+$/.test(id) ? BigInt(id) : BigInt(Buffer.from(id).reduce((h, b) => (h * 31 + b) >>> 0, 7));
  const bytes: number[] = [];
  while (n > 0n || bytes.length === 0) {
    bytes.push(Number(n & 0xffn));
    n >>= 8n;
  }
  return Buffer.from(bytes).toString('base64url');
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | null = null,
  ) {
    super(detail ?? String(status));
  }
}

/** The `limit` query parameter: default 25, at most pageLimitMax, 400 when not a positive integer. */
function readLimit(params: URLSearchParams, max: number): number {
  const raw = params.get('limit');
  if (raw === null) return Math.min(DEFAULT_LIMIT, max);
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new RequestError(400, 'limit must be a positive integer');
  return Math.min(Number(raw), max);
}

/** Values of a multi-valued parameter, repeated or comma-separated. */
function readList(params: URLSearchParams, name: string): string[] | undefined {
  const values = params.getAll(name);
  if (values.length === 0) return undefined;
  return values
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/**
 * One page of `items` (already in id order) after the request's cursor, and the next link when
 * more remain: the request's own path and query with the cursor replaced.
 */
function paginate<T extends { id: string }>(
  items: T[],
  url: URL,
  limit: number,
): { page: T[]; next: string | undefined } {
  const cursor = url.searchParams.get('cursor');
  let start = 0;
  if (cursor !== null) {
    const after = decodeCursor(cursor);
    if (after === undefined) throw new RequestError(400, 'Invalid cursor');
    // First item after the cursor's id: binary search over the sorted ids.
    let low = 0;
    let high = items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compareIds(items[mid]!.id, after) <= 0) low = mid + 1;
      else high = mid;
    }
    start = low;
  }
  const page = items.slice(start, start + limit);
  const last = page[page.length - 1];
  if (start + limit >= items.length || last === undefined) return { page, next: undefined };
  const params = new URLSearchParams(url.searchParams);
  params.set('cursor', encodeCursor(last.id));
  return { page, next: `${url.pathname}?${params.toString()}` };
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeConfluence(options: FakeConfluenceOptions = {}): Promise<FakeConfluence> {
  const email = options.email ?? FAKE_CONFLUENCE_EMAIL;
  const apiToken = options.apiToken ?? FAKE_CONFLUENCE_API_TOKEN;
  const pageLimitMax = options.pageLimitMax ?? 250;
  if (!Number.isInteger(pageLimitMax) || pageLimitMax < 1) throw new Error('pageLimitMax must be a positive integer');
  const expectedAuthorization = `Basic ${Buffer.from(`${email}:${apiToken}`, 'utf8').toString('base64')}`;

  const spaces = new Map<string, FakeSpace>((options.spaces ?? []).map((space) => [space.key, space]));
  const requests: FakeRequest[] = [];
  const faults: Array<{ match: (path: string) => boolean; fault: FakeFault; remaining: number }> = [];
  /** Pending fault delays, ended early by close(). */
  const waits = new Set<() => void>();
  let base = '';

  const spaceById = (id: string): FakeSpace | undefined => {
    for (const space of spaces.values()) if (space.id === id) return space;
    return undefined;
  };

  const spaceJson = (space: FakeSpace) => {
    const homepage = space.pages.find((page) => page.parentId === null);
    return {
      id: space.id,
      key: space.key,
      name: space.name,
      type: 'global',
      status: 'current',
      authorId: AUTHOR_ID,
      spaceOwnerId: AUTHOR_ID,
      createdAt: new Date(CREATED_AT_MS).toISOString(),
      homepageId: homepage?.id ?? null,
      icon: null,
      description: null,
      currentActiveAlias: space.key,
      _links: { webui: `/spaces/${encodeURIComponent(space.key)}` },
    };
  };

  const pageJson = (space: FakeSpace, page: FakePage, withStorage: boolean) => {
    const createdAt = new Date(CREATED_AT_MS).toISOString();
    return {
      id: page.id,
      status: 'current',
      title: page.title,
      spaceId: space.id,
      parentId: page.parentId,
      parentType: page.parentId === null ? null : 'page',
      position: null,
      authorId: AUTHOR_ID,
      ownerId: AUTHOR_ID,
      lastOwnerId: null,
      createdAt,
      version: {
        number: page.version,
        message: '',
        minorEdit: false,
        authorId: AUTHOR_ID,
        createdAt: new Date(CREATED_AT_MS + page.version * 60_000).toISOString(),
        ncsStepVersion: null,
      },
      body: withStorage ? { storage: { representation: 'storage', value: page.body } } : {},
      _links: {
        editui: `/pages/resumedraft.action?draftId=${encodeURIComponent(page.id)}`,
        webui: `/spaces/${encodeURIComponent(space.key)}/pages/${encodeURIComponent(page.id)}/${titleSlug(page.title)}`,
        edituiv2: `/spaces/${encodeURIComponent(space.key)}/pages/edit-v2/${encodeURIComponent(page.id)}`,
        tinyui: `/x/${tinyCode(page.id)}`,
      },
    };
  };

  /** The JSON body and headers of a listing: `results`, `_links` and the Link header. */
  const listing = (results: unknown[], next: string | undefined): { body: string; headers: Record<string, string> } => {
    const wikiBase = `${base}/wiki`;
    const links: Record<string, string> = next === undefined ? { base: wikiBase } : { next, base: wikiBase };
    const headers: Record<string, string> =
      next === undefined ? {} : { Link: `<${next}>; rel="next", <${wikiBase}>; rel="base"` };
    return { body: JSON.stringify({ results, _links: links }), headers };
  };

  const route = (url: URL): { body: string; headers?: Record<string, string> } => {
    const path = url.pathname.replace(/\/+$/, '');
    const params = url.searchParams;

    if (path === `${API_PREFIX}/spaces`) {
      const limit = readLimit(params, pageLimitMax);
      const keys = readList(params, 'keys');
      const ids = readList(params, 'ids');
      const matching = [...spaces.values()]
        .filter(
          (space) => (keys === undefined || keys.includes(space.key)) && (ids === undefined || ids.includes(space.id)),
        )
        .sort((a, b) => compareIds(a.id, b.id));
      const { page, next } = paginate(matching, url, limit);
      return listing(page.map(spaceJson), next);
    }

    const spaceMatch = /^\/wiki\/api\/v2\/spaces\/([^/]+)(\/pages)?$/.exec(path);
    if (spaceMatch !== null) {
      const space = spaceById(decodeURIComponent(spaceMatch[1]!));
      if (space === undefined) throw new RequestError(404);
      if (spaceMatch[2] === undefined) return { body: JSON.stringify(spaceJson(space)) };

      const limit = readLimit(params, pageLimitMax);
      const format = params.get('body-format');
      if (format !== null && format !== 'storage') {
        throw new RequestError(400, `body-format ${format} is not supported by this server`);
      }
      const statuses = readList(params, 'status');
      const pages = statuses === undefined || statuses.includes('current') ? [...space.pages] : [];
      pages.sort((a, b) => compareIds(a.id, b.id));
      const { page, next } = paginate(pages, url, limit);
      return listing(
        page.map((p) => pageJson(space, p, format === 'storage')),
        next,
      );
    }

    throw new RequestError(404);
  };

  const send = (res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, {
      'Content-Type': 'application/json;charset=UTF-8',
      'Content-Length': Buffer.byteLength(body),
      ...headers,
    });
    res.end(body);
  };

  /** Waits ms; false when the client went away (or the fake closed) first. */
  const wait = (ms: number, res: http.ServerResponse): Promise<boolean> =>
    new Promise((resolve) => {
      const finish = (answered: boolean) => {
        clearTimeout(timer);
        res.off('close', onClose);
        waits.delete(onClose);
        resolve(answered);
      };
      const onClose = () => finish(false);
      const timer = setTimeout(() => finish(true), ms);
      res.once('close', onClose);
      waits.add(onClose);
    });

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const rawPath = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', path: rawPath, authorization: req.headers.authorization });
    req.resume();

    const queued = faults.find((entry) => entry.remaining > 0 && entry.match(rawPath));
    if (queued !== undefined) {
      queued.remaining--;
      if (queued.remaining === 0) faults.splice(faults.indexOf(queued), 1);
      const { fault } = queued;
      if (fault.delayMs !== undefined && fault.delayMs > 0 && !(await wait(fault.delayMs, res))) return;
      if (fault.reset === true) {
        req.socket.destroy();
        return;
      }
      const headers: Record<string, string> = { ...fault.headers };
      if (fault.retryAfter !== undefined) headers['Retry-After'] = fault.retryAfter;
      if (fault.contentType !== undefined) headers['Content-Type'] = fault.contentType;
      if (fault.body !== undefined) {
        send(res, fault.status ?? 200, fault.body, headers);
        return;
      }
      if (fault.status !== undefined) {
        send(res, fault.status, errorBody(fault.status), headers);
        return;
      }
    }

    if (req.headers.authorization !== expectedAuthorization) {
      send(res, 401, errorBody(401), { 'WWW-Authenticate': 'Basic realm="Confluence"' });
      return;
    }
    if (req.method !== 'GET') {
      send(res, 405, errorBody(405), { Allow: 'GET' });
      return;
    }
    try {
      const answer = route(new URL(rawPath, base));
      send(res, 200, answer.body, answer.headers);
    } catch (error) {
      if (error instanceof RequestError) send(res, error.status, errorBody(error.status, error.detail));
      else send(res, 500, errorBody(500));
    }
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, errorBody(500)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    email,
    apiToken,
    spaces,
    requests,
    fault(match, fault, times = 1) {
      if (!Number.isInteger(times) || times < 1) throw new Error('times must be a positive integer');
      faults.push({ match, fault, remaining: times });
    },
    close() {
      for (const end of [...waits]) end();
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

// --- Generated content ------------------------------------------------------------------------

/** mulberry32: a small, fast, deterministic PRNG in [0, 1). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function hashString(text: string): number {
  let h = 2_166_136_261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16_777_619);
  return h >>> 0;
}

/** A comma-separated word list, written as a block of text. */
function words(text: string): string[] {
  return text
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
}

const NOUNS = words(`
  service, cluster, deployment, pipeline, request, token, cache, index, schema, migration, replica, queue,
  worker, endpoint, gateway, certificate, dashboard, alert, runbook, incident, rollout, tenant, namespace,
  bucket, snapshot, partition, shard, backlog, release, branch, build, artifact, container, node, volume,
  secret, policy, role, account, invoice, customer, report, metric, trace, event, webhook, integration,
  connector, database, table, column, query, transaction, lock, timeout, quota, budget, owner, sprint,
  milestone, roadmap, requirement, specification, dependency, library, module, package, feature flag,
  experiment, load balancer, health check, on-call rotation, error budget, retention policy, access review,
  staging environment, audit log, consumer group, message broker, batch job, search index
`);
const VERBS = words(`
  deploy, configure, monitor, rotate, validate, migrate, provision, restart, scale, review, approve, document,
  escalate, reconcile, aggregate, throttle, retry, invalidate, backfill, archive, export, import, sync, tag,
  promote, roll back, drain, rebuild, verify, update, inspect, replay, compact, encrypt, schedule, measure,
  track, publish, refresh, split
`);
const ADJECTIVES = words(`
  primary, secondary, stale, healthy, degraded, regional, internal, external, nightly, weekly, critical,
  optional, deprecated, legacy, new, shared, dedicated, idempotent, asynchronous, encrypted, read-only,
  temporary, default, upstream, downstream, manual, automated, expensive, noisy, quiet, partial, complete,
  pending, failed, successful, large, small, slow, fast
`);
const PREPOSITIONS = words('before, after, during, behind, across, inside, against, through, without, for');
const SUBJECTS = words('We, Platform engineers, On-call engineers, Most squads, Release managers, Reviewers');
const WHEN = words('before, after, once, whenever, as soon as, until');
const CONNECTORS = words('so that, because, unless, until, while, even when, whenever');
const CADENCES = words('daily, weekly, on demand, per release');
const OUTCOMES = words('reviewed, approved, drained, backed up, verified');
const COLUMN_NAMES = words('Owner, Status, Notes, Limit, Region');
const UNITS = words('req/s, ms, GB, pods, days');
const TEAMS = words('Platform, Payments, Search, Identity, Data, Mobile, Billing, Infrastructure, Growth');
const DOC_KINDS = words(`
  Runbook, Overview, Guide, FAQ, Architecture, Postmortem, How-to, Checklist, Design notes, Onboarding,
  Release notes, Decision record, Troubleshooting, Glossary, Meeting notes
`);
const LANGUAGES = ['bash', 'typescript', 'sql', 'yaml', 'json', 'python'] as const;
const PANELS = ['info', 'note', 'warning', 'tip'] as const;

/** "a" or "an" before a phrase, looking past any leading tags. */
function withArticle(phrase: string): string {
  const first = phrase
    .replace(/^(<[^>]+>)+/, '')
    .charAt(0)
    .toLowerCase();
  return `${'aeiou'.includes(first) ? 'an' : 'a'} ${phrase}`;
}

/** Builds storage-format blocks from a seeded PRNG. */
class StorageWriter {
  readonly #random: () => number;

  constructor(seed: number) {
    this.#random = prng(seed);
  }

  #int(max: number): number {
    return Math.floor(this.#random() * max);
  }

  #pick<T>(items: readonly T[]): T {
    return items[this.#int(items.length)]!;
  }

  #chance(p: number): boolean {
    return this.#random() < p;
  }

  #noun(): string {
    return this.#pick(NOUNS);
  }

  #hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += this.#int(16).toString(16);
    return out;
  }

  macroId(): string {
    return `${this.#hex(8)}-${this.#hex(4)}-4${this.#hex(3)}-a${this.#hex(3)}-${this.#hex(12)}`;
  }

  title(): string {
    const words = `${this.#pick(ADJECTIVES)} ${this.#noun()} ${this.#pick(DOC_KINDS).toLowerCase()}`;
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  #verb3(verb: string): string {
    const [head, ...rest] = verb.split(' ');
    const word = head!;
    const third = /(s|sh|ch|x|z)$/.test(word)
      ? `${word}es`
      : /[^aeiou]y$/.test(word)
        ? `${word.slice(0, -1)}ies`
        : `${word}s`;
    return [third, ...rest].join(' ');
  }

  /** A noun phrase, sometimes with inline markup. */
  #phrase(markup: boolean): string {
    const noun = this.#noun();
    const text = this.#chance(0.6) ? `${this.#pick(ADJECTIVES)} ${noun}` : noun;
    if (!markup) return text;
    const roll = this.#random();
    if (roll < 0.05) return `<strong>${text}</strong>`;
    if (roll < 0.09) return `<em>${text}</em>`;
    if (roll < 0.13) return `<code>${noun.replace(/ /g, '_')}</code>`;
    return text;
  }

  sentence(markup = true): string {
    const phrase = () => this.#phrase(markup);
    const verb = () => this.#pick(VERBS);
    let parts: Array<string | number>;
    switch (this.#int(7)) {
      case 0:
        parts = ['The', phrase(), this.#verb3(verb()), 'the', phrase(), this.#pick(PREPOSITIONS), 'the', phrase()];
        break;
      case 1:
        parts = [this.#pick(SUBJECTS), verb(), 'every', phrase(), this.#pick(CONNECTORS), 'the', phrase(), 'stays'];
        parts.push(this.#pick(ADJECTIVES));
        break;
      case 2:
        parts = ['Always', verb(), 'the', phrase(), this.#pick(WHEN), 'you', verb(), 'the', phrase()];
        break;
      case 3:
        parts = ['If the', phrase(), 'is', `${this.#pick(ADJECTIVES)},`, this.#pick(SUBJECTS).toLowerCase(), verb()];
        parts.push('it within', 2 + this.#int(58), 'minutes');
        break;
      case 4:
        parts = [withArticle(`${this.#pick(ADJECTIVES)} ${this.#noun()}`), 'usually means the', phrase(), 'needs'];
        parts.push(withArticle(phrase()));
        parts.push('— see the', this.#pick(DOC_KINDS).toLowerCase(), 'for details');
        break;
      case 5:
        parts = ['About', `${1 + this.#int(99)}%`, 'of', this.#noun(), 'traffic goes', this.#pick(PREPOSITIONS)];
        parts.push('the', `${phrase()},`, 'so R&amp;D', this.#verb3(verb()), 'it', this.#pick(CADENCES));
        break;
      default:
        parts = ['Do not', verb(), withArticle(phrase()), this.#pick(CONNECTORS), 'the', phrase(), 'has been'];
        parts.push(this.#pick(OUTCOMES));
    }
    let text = parts.join(' ');
    if (markup && this.#chance(0.06)) {
      const slug = `${this.#noun()}-${this.#pick(DOC_KINDS)}`.toLowerCase().replace(/ /g, '-');
      text += ` (<a href="https://docs.example.com/${slug}">${this.#pick(DOC_KINDS).toLowerCase()}</a>)`;
    } else if (markup && this.#chance(0.05)) {
      const target = this.title();
      const link = `<ac:link><ri:page ri:content-title="${target}" /><ac:link-body>${target}</ac:link-body></ac:link>`;
      text += ` (see ${link})`;
    }
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  }

  paragraph(): string {
    const count = 2 + this.#int(4);
    const sentences: string[] = [];
    for (let i = 0; i < count; i++) sentences.push(this.sentence());
    return `<p>${sentences.join(' ')}</p>`;
  }

  heading(level: 1 | 2 | 3): string {
    return `<h${level}>${this.title()}</h${level}>`;
  }

  list(ordered: boolean): string {
    const tag = ordered ? 'ol' : 'ul';
    const count = 3 + this.#int(4);
    const items: string[] = [];
    for (let i = 0; i < count; i++) {
      const step = ordered ? `${this.#pick(VERBS)} → ${this.sentence()}` : this.sentence();
      items.push(`<li><p>${step.charAt(0).toUpperCase()}${step.slice(1)}</p></li>`);
    }
    return `<${tag}>${items.join('')}</${tag}>`;
  }

  table(): string {
    const columns = 3 + this.#int(2);
    const rows = 3 + this.#int(4);
    const widths = Array.from({ length: columns }, () => `<col style="width: ${120 + this.#int(300)}.0px;" />`);
    const header = Array.from({ length: columns }, (_, i) => {
      const name = i === 0 ? 'Name' : this.#pick(COLUMN_NAMES);
      return `<th><p><strong>${name}</strong></p></th>`;
    });
    const body: string[] = [];
    for (let r = 0; r < rows; r++) {
      const cells = Array.from({ length: columns }, (_, c) => {
        let text: string;
        if (c === 0) text = `<code>${this.#noun().replace(/ /g, '-')}-${r + 1}</code>`;
        else if (c === 1) text = this.#pick(TEAMS);
        else if (this.#chance(0.5)) text = `${this.#int(1000)} ${this.#pick(UNITS)}`;
        else text = this.sentence(false);
        return `<td><p>${text}</p></td>`;
      });
      body.push(`<tr>${cells.join('')}</tr>`);
    }
    return (
      `<table data-layout="default"><colgroup>${widths.join('')}</colgroup>` +
      `<tbody><tr>${header.join('')}</tr>${body.join('')}</tbody></table>`
    );
  }

  /** A code macro; the source has the characters XML would need escaped, raw inside CDATA. */
  code(): string {
    const language = this.#pick(LANGUAGES);
    const name = this.#noun().replace(/[ -]/g, '_');
    const other = this.#noun().replace(/[ -]/g, '_');
    const n = 1 + this.#int(500);
    let lines: string[];
    switch (language) {
      case 'bash':
        lines = [
          '#!/usr/bin/env bash',
          'set -euo pipefail',
          `kubectl -n ${name} rollout status deploy/${other} --timeout=${n}s`,
          `if [ "$(curl -s -o /dev/null -w '%{http_code}' https://${name}.internal/healthz)" != "200" ]; then`,
          `  echo "${name} unhealthy" >&2 && exit 1`,
          'fi',
        ];
        break;
      case 'typescript':
        lines = [
          `export async function ${name}Handler(input: { ${other}: string[] }): Promise<number> {`,
          `  const limit = ${n};`,
          '  let total = 0;',
          `  for (const item of input.${other}) {`,
          '    if (item.length > limit && total < limit) total += 1;',
          '  }',
          '  return total;',
          '}',
        ];
        break;
      case 'sql':
        lines = [
          `SELECT ${name}_id, count(*) AS ${other}_count`,
          `FROM ${name}s`,
          `WHERE created_at > now() - interval '${n} minutes'`,
          "  AND status <> 'archived'",
          `GROUP BY ${name}_id`,
          `HAVING count(*) >= ${n % 17};`,
        ];
        break;
      case 'yaml':
        lines = [
          `${name}:`,
          `  replicas: ${1 + (n % 9)}`,
          '  resources:',
          `    limits: { cpu: "${n}m", memory: "${n * 2}Mi" }`,
          '  env:',
          `    - name: ${other.toUpperCase()}_URL`,
          `      value: "https://${other}.internal:8443/?a=1&b=2"`,
        ];
        break;
      case 'json':
        lines = [
          JSON.stringify({ [name]: { enabled: n % 2 === 0, threshold: n, tags: [other, 'team<a&b>'] } }, null, 2),
        ];
        break;
      default:
        lines = [
          `def ${name}_report(rows):`,
          `    """Summarise ${other} rows where value < ${n}."""`,
          `    return {r["id"]: r["value"] for r in rows if r["value"] < ${n} and r.get("${other}")}`,
        ];
    }
    return (
      `<ac:structured-macro ac:name="code" ac:schema-version="1" ac:macro-id="${this.macroId()}">` +
      `<ac:parameter ac:name="language">${language}</ac:parameter>` +
      `<ac:parameter ac:name="breakoutMode">wide</ac:parameter>` +
      `<ac:plain-text-body><![CDATA[${lines.join('\n')}]]></ac:plain-text-body></ac:structured-macro>`
    );
  }

  panel(kind?: (typeof PANELS)[number]): string {
    const name = kind ?? this.#pick(PANELS);
    return (
      `<ac:structured-macro ac:name="${name}" ac:schema-version="1" ac:macro-id="${this.macroId()}">` +
      `<ac:rich-text-body><p>${this.sentence()} ${this.sentence()}</p></ac:rich-text-body></ac:structured-macro>`
    );
  }

  /** A block chosen by weight: mostly prose, with the occasional list, table, code or panel. */
  randomBlock(): string {
    const roll = this.#random();
    if (roll < 0.42) return this.paragraph();
    if (roll < 0.52) return this.heading(2);
    if (roll < 0.6) return this.heading(3);
    if (roll < 0.7) return this.list(false);
    if (roll < 0.76) return this.list(true);
    if (roll < 0.82) return this.table();
    if (roll < 0.92) return this.code();
    return this.panel();
  }
}

/**
 * Realistic Confluence storage-format XHTML of about targetBytes UTF-8 bytes, the same for the
 * same seed: headings (h1–h3), paragraphs of technical prose with inline markup, links to pages
 * and to the web, bullet and numbered lists, a table, code macros with CDATA and panels. The
 * first blocks cover every kind; the page then grows with a weighted mix until it reaches the
 * target (it may pass it by one block).
 */
export function generateStoragePage(seed: number, targetBytes: number): string {
  const writer = new StorageWriter(seed);
  const blocks: string[] = [];
  let bytes = 0;
  const add = (block: string): boolean => {
    blocks.push(block);
    bytes += Buffer.byteLength(block, 'utf8');
    return bytes >= targetBytes;
  };
  const opening = [
    () => writer.heading(1),
    () => writer.paragraph(),
    () => writer.panel('info'),
    () => writer.heading(2),
    () => writer.paragraph(),
    () => writer.list(false),
    () => writer.heading(3),
    () => writer.code(),
    () => writer.paragraph(),
    () => writer.heading(2),
    () => writer.table(),
    () => writer.list(true),
  ];
  for (const block of opening) if (add(block())) return blocks.join('');
  while (!add(writer.randomBlock()));
  return blocks.join('');
}

/**
 * A space of `pages` generated pages of about pageBytes each, deterministic for the same key and
 * seed. Ids are numeric strings derived from the key and seed (spaces generated with different
 * keys are unlikely to share any); the first page is the space's home page and every other page
 * hangs below an earlier one. Titles are unique within the space, as Confluence requires.
 */
export function generateSpace(options: { key: string; pages: number; pageBytes: number; seed?: number }): FakeSpace {
  const { key, pages: count, pageBytes } = options;
  if (!Number.isInteger(count) || count < 0 || count > 999_999) {
    throw new Error('pages must be an integer from 0 to 999999');
  }
  const random = prng(hashString(key) ^ (options.seed ?? 1));
  const spaceNumber = 100_000 + (hashString(`${key}:${options.seed ?? 1}`) % 900_000);
  const namer = new StorageWriter(Math.floor(random() * 2 ** 32));

  const titles = new Set<string>();
  const pages: FakePage[] = [];
  for (let i = 0; i < count; i++) {
    let title = i === 0 ? `${key} home` : namer.title();
    for (let n = 2; titles.has(title); n++) title = `${title.replace(/ \(\d+\)$/, '')} (${n})`;
    titles.add(title);
    pages.push({
      id: String(spaceNumber * 1_000_000 + i + 1),
      title,
      parentId: i === 0 ? null : pages[Math.floor(random() * i)]!.id,
      version: 1 + Math.floor(random() * 5),
      body: generateStoragePage(Math.floor(random() * 2 ** 32), pageBytes),
    });
  }
  const team = TEAMS[hashString(key) % TEAMS.length]!;
  return { id: String(spaceNumber), key, name: `${team} ${key}`, pages };
}
