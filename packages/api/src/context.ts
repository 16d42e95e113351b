import type {
  AdminSessions,
  ApiKeysService,
  AssistantService,
  FeedbackService,
  FileIngestion,
  AuthenticatedKey,
  ChatService,
  ConversationsService,
  DocumentsService,
  QueryLog,
  FaqService,
  IngestionService,
  Logger,
  OpenApiIngestion,
  SearchUseCase,
  ContextUseCase,
  SlidingWindowRateLimiter,
  SourcesService,
  UrlIngestion,
  UsageTracker,
  WikiImports,
} from '@kb/core';

export type AuthLevel = 'public' | 'apiKey' | 'admin';

export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'key'; key: AuthenticatedKey }
  | { kind: 'session'; token: string };

/** The core services the procedures and their middlewares call (the server builds them once). */
export interface ApiServices {
  keys: ApiKeysService;
  usage: UsageTracker;
  rateLimiter: SlidingWindowRateLimiter;
  sessions: AdminSessions;
  ingestion: IngestionService;
  urlIngestion: UrlIngestion;
  fileIngestion: FileIngestion;
  openApiIngestion: OpenApiIngestion;
  /** Searching (scope, ranking, query log, metrics): what every search door calls. */
  search: SearchUseCase;
  /** Passages for a caller's own model, as the chat retrieves them. */
  context: ContextUseCase;
  wikiImports: WikiImports;
  sources: SourcesService;
  chat: ChatService;
  conversations: ConversationsService;
  faq: FaqService;
  documents: DocumentsService;
  queryLog: QueryLog;
  assistant: AssistantService;
  feedback: FeedbackService;
}

export interface RequestContext {
  services: ApiServices;
  requestId: string;
  /** Client address, always a valid IP address: the socket's peer, or behind the proxies KB_TRUST_PROXY trusts the address they saw. */
  ip: string;
  /** Whether the client reached us over TLS (directly or through a trusted proxy). */
  secure: boolean;
  /** This server's origin as the client reached it (scheme and Host): its own pages' origin. */
  selfOrigin?: string;
  log: Logger;
  header(name: string): string | undefined;
  cookie(name: string): string | undefined;
  /** Response headers to send with the response, success or error. */
  responseHeaders: Record<string, string | string[]>;
  /** Success status other than 200 (201 for creations, 202 for accepted jobs). */
  responseStatus?: number;
  caller: Caller;
}

/**
 * The origin of the page a browser request came from, as the publishable-key checks read it.
 * Browsers leave `Origin` out of same-origin GETs, and send `Origin: null` on other same-origin
 * requests of a page with `Referrer-Policy: no-referrer` (the console's and the home page's, which
 * preview the assistant); `Sec-Fetch-Site: same-origin`, which no page can set, then says the
 * page is this server's own. (A script outside a browser can send either header: origins only
 * stop browsers, and the budgets hold the rest.)
 */
export function pageOrigin(ctx: Pick<RequestContext, 'header' | 'selfOrigin'>): string | undefined {
  const origin = ctx.header('origin');
  if ((origin === undefined || origin === 'null') && ctx.selfOrigin !== undefined && ctx.header('sec-fetch-site') === 'same-origin') return ctx.selfOrigin;
  return origin;
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const raw of header.split(';')) {
    const part = raw.trim();
    const index = part.indexOf('=');
    if (index <= 0) continue;
    const name = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    if (!cookies.has(name)) {
      try {
        cookies.set(name, decodeURIComponent(value));
      } catch {
        cookies.set(name, value);
      }
    }
  }
  return cookies;
}
