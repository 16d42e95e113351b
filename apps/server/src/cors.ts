import type { ServerResponse } from 'node:http';
import { publishedProcedures } from '@kb/api';
import { AppError, originAllowed, parseOrigin, sameOrigin, type ApiKeysService } from '@kb/core';
import { sendError } from './http-errors.ts';

/** Request headers a page may send (the key, the JSON body, the visitor token, a request id). */
export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, X-Kb-Visitor, X-Request-Id';
/** Response headers a page may read: the limits, when to retry, the request id. */
export const CORS_EXPOSED_HEADERS = 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id';
/** How long a browser may keep a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

interface BrowserOperation {
  pattern: RegExp;
  methods: Set<string>;
  anyOrigin: boolean;
}

/** A path a page may call: the methods it takes, and whether pages of any origin may read its answers. */
export interface BrowserPath {
  methods: string[];
  anyOrigin: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * CORS for the operations web pages call: those open to publishable keys (the procedures' meta
 * says so). Browsers are answered for the origins that some active publishable key allows, and
 * for this server's own pages; never `*`. Which origin may use which key is checked with the key
 * itself, on the request that follows (the preflight carries no key).
 */
export class Cors {
  private readonly operations: BrowserOperation[];

  constructor(
    basePath: string,
    private readonly keys: Pick<ApiKeysService, 'publishableOrigins'>,
  ) {
    const byPath = new Map<string, BrowserOperation>();
    for (const { method, path, meta } of publishedProcedures()) {
      if (!meta.publishable && !meta.anyOrigin) continue;
      const operation = byPath.get(path) ?? {
        pattern: new RegExp(`^${escapeRegExp(basePath + path).replace(/\\\{[^/]+?\\\}/g, '[^/]+')}$`),
        methods: new Set<string>(),
        anyOrigin: false,
      };
      operation.methods.add(method);
      if (method === 'GET') operation.methods.add('HEAD');
      operation.anyOrigin ||= meta.anyOrigin === true;
      byPath.set(path, operation);
    }
    this.operations = [...byPath.values()];
  }

  /** The browser operations at a path, whatever the method; undefined for a path pages do not call. */
  match(pathname: string): BrowserPath | undefined {
    const found = this.operations.filter((operation) => operation.pattern.test(pathname));
    if (found.length === 0) return undefined;
    return { methods: [...new Set(found.flatMap((operation) => [...operation.methods]))], anyOrigin: found.some((operation) => operation.anyOrigin) };
  }

  /** Whether pages at `origin` may read the answers of a path. */
  async allows(path: BrowserPath, origin: string, selfOrigin: string | undefined): Promise<boolean> {
    if (path.anyOrigin) return parseOrigin(origin) !== null;
    if (selfOrigin !== undefined && sameOrigin(origin, selfOrigin)) return true;
    const patterns = await this.keys.publishableOrigins().catch((error: unknown) => {
      throw new AppError('SERVICE_UNAVAILABLE', "The service cannot check this page's origin right now; try again shortly", { cause: error });
    });
    return originAllowed(patterns, origin);
  }

  /** Marks the answer readable by the page at `origin`. */
  static allow(res: ServerResponse, origin: string): void {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
  }

  /** Answers a preflight: 204 with what the page may send, or a 403 for an origin no key allows. */
  async preflight(res: ServerResponse, path: BrowserPath, origin: string | undefined, selfOrigin: string | undefined): Promise<void> {
    res.setHeader('Vary', 'Origin');
    if (origin === undefined) {
      res.writeHead(204, { Allow: [...path.methods, 'OPTIONS'].join(', ') });
      res.end();
      return;
    }
    if (!(await this.allows(path, origin, selfOrigin))) {
      sendError(res, 'FORBIDDEN', `This site (${origin.slice(0, 200)}) is not allowed to call this service: no publishable key lists its origin`);
      return;
    }
    Cors.allow(res, origin);
    res.writeHead(204, {
      'Access-Control-Allow-Methods': path.methods.join(', '),
      'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS,
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    });
    res.end();
  }
}
