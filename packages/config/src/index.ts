import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * The service's configuration. This module is the only reader of process.env: everything
 * else receives a parsed Config. Each concern has its own schema; loadConfig() parses them
 * all and reports every bad variable at once.
 */

/** The namespaces (also called sources) documents are grouped in: the service's fixed vocabulary. */
export const NAMESPACES = ['user_docs', 'tech_docs', 'api_endpoints', 'wiki'] as const;

const emptyToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const optionalUrl = (protocols: string[]) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .refine((v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      }, `must be a URL (${protocols.join(' or ')})`)
      .optional(),
  );
const boolFlag = (fallback: boolean) =>
  z.preprocess(
    emptyToUndefined,
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
      .optional()
      .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1' || v === 'yes')),
  );
const wholeNumber = (fallback: number, min: number, max: number) =>
  z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ message: 'must be a number' })
      .int('must be a whole number')
      .min(min, min === 0 ? 'must be 0 or more' : `must be at least ${min}`)
      .max(max, `must be at most ${max}`)
      .default(fallback),
  );
const positiveInt = (fallback: number, max = Number.MAX_SAFE_INTEGER) => wholeNumber(fallback, 1, max);

/**
 * Which proxies in front of the server are trusted to say the client's address: none, the nearest
 * `hops` (each appends the address it saw to X-Forwarded-For), or those whose own address is in
 * `ranges` (addresses, CIDR ranges, or the names loopback, linklocal, uniquelocal).
 */
export type TrustedProxies = { hops: number } | { ranges: string[] } | null;

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
const MAX_PROXY_HOPS = 20;

/** A proxy range: an address, an address with a prefix length (CIDR), or a named range. */
function proxyRangeValid(range: string): boolean {
  if (PROXY_RANGE_NAMES.includes(range)) return true;
  const [address = '', prefix, extra] = range.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const trustProxySetting = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((v, ctx): TrustedProxies => {
      const value = v?.trim().toLowerCase();
      if (value === undefined || ['false', '0', 'no'].includes(value)) return null;
      // `true` is the usual single proxy (a load balancer or nginx on the same host): the address it saw.
      if (['true', 'yes'].includes(value)) return { hops: 1 };
      if (/^\d+$/.test(value)) {
        const hops = Number(value);
        if (hops <= MAX_PROXY_HOPS) return { hops };
      } else {
        const ranges = [...new Set(value.split(',').map((r) => r.trim()).filter((r) => r !== ''))];
        if (ranges.length > 0 && ranges.every(proxyRangeValid)) return { ranges };
      }
      ctx.addIssue({
        code: 'custom',
        message: `must be false, true (one proxy), the number of proxies in front of the server (at most ${MAX_PROXY_HOPS}), or a comma-separated list of the proxies' addresses and CIDR ranges (or loopback, linklocal, uniquelocal)`,
      });
      return z.NEVER;
    }),
);

const serverSchema = z.object({
  PORT: z.preprocess(
    emptyToUndefined,
    z.coerce.number({ message: 'must be a number' }).int().min(0).max(65535, 'must be a port number (0-65535)').default(3000),
  ),
  HOST: z.preprocess(emptyToUndefined, z.string().default('0.0.0.0')),
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  NODE_ENV: z.preprocess(emptyToUndefined, z.string().default('development')),
  KB_TRUST_PROXY: trustProxySetting,
  // The address users reach the service by; its origin is the service's own (publishable keys, CORS, /mcp).
  KB_PUBLIC_URL: optionalUrl(['http:', 'https:']),
});

/** The embedded store's page cache (see docs/deployment.md for what it costs and buys). */
const EMBEDDED_CACHE_MB_DEFAULT = 32;

const storageSchema = z.object({
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  KB_DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./.kb-data')),
  KB_DB_POOL_SIZE: positiveInt(10, 200),
  KB_EMBEDDED_CACHE_MB: positiveInt(EMBEDDED_CACHE_MB_DEFAULT, 16_384),
  // Writes to the embedded store are refused (503) while its disk has less free space; 0 turns the check off.
  KB_EMBEDDED_MIN_FREE_MB: wholeNumber(64, 0, 1_048_576),
  DATABASE_REPLICA_URLS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .optional()
      .transform((v, ctx) => {
        const urls = (v ?? '').split(',').map((url) => url.trim()).filter((url) => url !== '');
        const bad = urls.filter((url) => {
          try {
            return !['postgres:', 'postgresql:'].includes(new URL(url).protocol);
          } catch {
            return true;
          }
        });
        if (bad.length > 0) {
          ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of PostgreSQL URLs (${bad.length} not one)` });
          return z.NEVER;
        }
        return [...new Set(urls)];
      }),
  ),
  KB_REPLICA_MAX_LAG_MS: wholeNumber(10_000, 100, 3_600_000),
}).superRefine((value, ctx) => {
  if (value.DATABASE_REPLICA_URLS.length > 0 && value.DATABASE_URL === undefined) {
    ctx.addIssue({ code: 'custom', path: ['DATABASE_REPLICA_URLS'], message: 'needs DATABASE_URL (replicas follow a PostgreSQL primary)' });
  }
});

const redisSchema = z.object({
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
});

const embeddingSchema = z.object({
  VOYAGE_API_KEY: optionalString,
  VOYAGE_BASE_URL: optionalUrl(['http:', 'https:']),
  VOYAGE_MODEL: z.preprocess(emptyToUndefined, z.string().default('voyage-3.5')),
  KB_EMBEDDING_DIM: z.preprocess(
    emptyToUndefined,
    z.coerce.number({ message: 'must be a number' }).int().min(8).max(4000, 'must be at most 4000 (the most dimensions pgvector can index)').optional(),
  ),
}).superRefine((value, ctx) => {
  // The built-in embedder spreads words over the dimensions: fewer than 16 cannot tell texts apart.
  if (value.VOYAGE_API_KEY === undefined && value.KB_EMBEDDING_DIM !== undefined && value.KB_EMBEDDING_DIM < 16) {
    ctx.addIssue({ code: 'custom', path: ['KB_EMBEDDING_DIM'], message: 'must be at least 16 for the built-in embedder (VOYAGE_API_KEY unset)' });
  }
});

const llmSchema = z.object({
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalUrl(['http:', 'https:']),
  ANTHROPIC_MODEL: z.preprocess(emptyToUndefined, z.string().default('claude-sonnet-5-5')),
  KB_ANSWER_MAX_TOKENS: positiveInt(1024, 64_000),
});

const answersSchema = z.object({
  KB_CHAT_CONTEXT_TOKENS: z.preprocess(
    emptyToUndefined,
    z.coerce.number({ message: 'must be a number' }).int('must be a whole number').min(500, 'must be at least 500').max(100_000).default(3_000),
  ),
  KB_CHAT_HISTORY_TOKENS: z.preprocess(
    emptyToUndefined,
    z.coerce.number({ message: 'must be a number' }).int('must be a whole number').min(0).max(100_000).default(2_000),
  ),
  VOYAGE_RERANK_MODEL: z.preprocess(emptyToUndefined, z.string().default('rerank-2.5')),
});

/** A comma-separated list of namespaces (`fallback` when unset). */
type NamespaceName = (typeof NAMESPACES)[number];
const namespaceList = (fallback: readonly NamespaceName[]) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined) return [...fallback];
        const names = [...new Set(v.split(',').map((name) => name.trim()).filter((name) => name !== ''))];
        const unknown = names.filter((name) => !(NAMESPACES as readonly string[]).includes(name));
        if (unknown.length > 0 || names.length === 0) {
          ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of ${NAMESPACES.join(', ')}${unknown.length > 0 ? ` (not ${unknown.join(', ')})` : ''}` });
          return z.NEVER;
        }
        return NAMESPACES.filter((name): name is NamespaceName => names.includes(name));
      }),
  );

/** What the anonymous FAQ draws on unless the operator says otherwise: the public namespaces, never the internal wiki. */
export const PUBLIC_FAQ_NAMESPACES = ['user_docs', 'tech_docs', 'api_endpoints'] as const satisfies readonly NamespaceName[];

const faqSchema = z.object({
  KB_FAQ_NAMESPACES: namespaceList(PUBLIC_FAQ_NAMESPACES),
  KB_FAQ_RATE_LIMIT_PER_MINUTE: wholeNumber(10, 0, 1_000_000),
  KB_FAQ_HIT_RATE_LIMIT_PER_MINUTE: wholeNumber(300, 0, 1_000_000),
  KB_FAQ_DAILY_LIMIT: wholeNumber(1_000, 0, 100_000_000),
  KB_FAQ_CONTEXT_TOKENS: wholeNumber(6_000, 500, 100_000),
});

const insightsSchema = z.object({
  KB_QUERY_LOG_DAYS: wholeNumber(30, 0, 3_650),
});

const searchSchema = z.object({
  KB_SEARCH_LEXICAL_CANDIDATES: wholeNumber(4_000, 0, 100_000_000),
});

const wikiSchema = z.object({
  WIKI_BASE_URL: optionalUrl(['http:', 'https:']),
  WIKI_EMAIL: optionalString,
  WIKI_API_TOKEN: optionalString,
});

const securitySchema = z.object({
  KB_ADMIN_PASSWORD: z.preprocess(
    emptyToUndefined,
    z.string().min(12, 'must be at least 12 characters').optional(),
  ),
  KB_ALLOW_PRIVATE_URLS: boolFlag(false),
  KB_SESSION_TTL_HOURS: positiveInt(12, 24 * 30),
});

const BOT_CHECK_VERIFY_URLS = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
} as const;

const assistantSchema = z
  .object({
    KB_BOT_CHECK_PROVIDER: z.preprocess(emptyToUndefined, z.enum(['turnstile', 'hcaptcha'], { message: 'must be turnstile or hcaptcha' }).optional()),
    KB_BOT_CHECK_SITE_KEY: optionalString,
    KB_BOT_CHECK_SECRET: optionalString,
    KB_BOT_CHECK_VERIFY_URL: optionalUrl(['http:', 'https:']),
    KB_VISITOR_TOKEN_TTL_MINUTES: positiveInt(120, 7 * 24 * 60),
  })
  .superRefine((value, ctx) => {
    if (value.KB_BOT_CHECK_PROVIDER === undefined) return;
    for (const name of ['KB_BOT_CHECK_SITE_KEY', 'KB_BOT_CHECK_SECRET'] as const) {
      if (value[name] === undefined) ctx.addIssue({ code: 'custom', path: [name], message: 'must be set when KB_BOT_CHECK_PROVIDER is' });
    }
  });

const limitsSchema = z.object({
  KB_MAX_BODY_BYTES: positiveInt(10 * 1024 * 1024),
  KB_MAX_SPEC_BYTES: positiveInt(25 * 1024 * 1024),
  KB_MAX_FILE_BYTES: positiveInt(25 * 1024 * 1024),
  KB_MAX_FETCH_BYTES: positiveInt(10 * 1024 * 1024),
  KB_FETCH_TIMEOUT_MS: positiveInt(15_000),
  KB_MAX_REDIRECTS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(20).default(5)),
});

const sourcesSchema = z.object({
  KB_SOURCE_HOST_CONCURRENCY: positiveInt(2, 16),
  KB_SOURCE_MIN_INTERVAL_MS: wholeNumber(250, 0, 60_000),
  KB_SOURCE_SYNC_MAX_MINUTES: positiveInt(60, 24 * 60),
  KB_SOURCE_SCHEDULE_CHECK_SECONDS: positiveInt(30, 3_600),
});

const jobsSchema = z.object({
  KB_QUEUE_PREFIX: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 letters, digits, "_", ".", ":" or "-"')
      .default('kb'),
  ),
  KB_WORKER_CONCURRENCY: positiveInt(1, 64),
  KB_JOB_LOCK_MS: z.preprocess(
    emptyToUndefined,
    z.coerce.number({ message: 'must be a number' }).int().min(1_000, 'must be at least 1000').max(3_600_000).default(30_000),
  ),
  KB_SHUTDOWN_GRACE_MS: z.preprocess(
    emptyToUndefined,
    z.coerce.number({ message: 'must be a number' }).int().min(0).max(3_600_000).default(10_000),
  ),
});

/** A comma-separated list, trimmed, empty entries dropped. */
const stringList = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((v) => (v === undefined ? [] : [...new Set(v.split(',').map((item) => item.trim()).filter((item) => item !== ''))])),
);

/** The MCP endpoint (/mcp): what it tells agents, and the hosts and pages it answers beyond the defaults (docs/mcp.md). */
const mcpSchema = z.object({
  KB_MCP_INSTRUCTIONS: optionalString,
  KB_MCP_ALLOWED_HOSTS: stringList,
  KB_MCP_ALLOWED_ORIGINS: stringList,
});

const portNumber = z.preprocess(
  emptyToUndefined,
  z.coerce.number({ message: 'must be a number' }).int().min(0).max(65535, 'must be a port number (0-65535)').optional(),
);

/** Metrics (Prometheus) and traces (OpenTelemetry, the standard OTEL_* variables). */
const telemetrySchema = z
  .object({
    KB_METRICS: boolFlag(false),
    KB_METRICS_TOKEN: z.preprocess(emptyToUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
    KB_METRICS_PORT: portNumber,
    KB_METRICS_HOST: z.preprocess(emptyToUndefined, z.string().default('127.0.0.1')),
    KB_WORKER_METRICS_PORT: portNumber,
    OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(['http:', 'https:']),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl(['http:', 'https:']),
    OTEL_EXPORTER_OTLP_HEADERS: optionalString,
    OTEL_SERVICE_NAME: z.preprocess(emptyToUndefined, z.string().default('kb')),
    OTEL_SDK_DISABLED: boolFlag(false),
  });

const schemas = {
  server: serverSchema,
  mcp: mcpSchema,
  storage: storageSchema,
  redis: redisSchema,
  embedding: embeddingSchema,
  llm: llmSchema,
  answers: answersSchema,
  faq: faqSchema,
  insights: insightsSchema,
  search: searchSchema,
  wiki: wikiSchema,
  security: securitySchema,
  assistant: assistantSchema,
  limits: limitsSchema,
  jobs: jobsSchema,
  sources: sourcesSchema,
  telemetry: telemetrySchema,
} as const;

export type EnvSource = Record<string, string | undefined>;

export interface Config {
  server: {
    port: number;
    host: string;
    logLevel: string;
    production: boolean;
    /** Whether any proxy is trusted (its X-Forwarded-Proto and X-Forwarded-Host are believed). */
    trustProxy: boolean;
    /** Which proxies say the client's address (KB_TRUST_PROXY). */
    trustedProxies: TrustedProxies;
    /**
     * The origin of KB_PUBLIC_URL: pages there are the service's own. Unset, only a loopback name or
     * an address literal in Host names the service's own origin (a rebound DNS name is neither).
     */
    publicOrigin: string | undefined;
  };
  storage:
    | {
        kind: 'postgres';
        databaseUrl: string;
        poolSize: number;
        /**
         * Streaming replicas that serve reads which tolerate lag (searches, answers' retrieval,
         * lists), round robin; a replica more than `replicaMaxLagMs` behind is left out.
         */
        replicaUrls: string[];
        replicaMaxLagMs: number;
      }
    | { kind: 'pglite'; dataDir: string; cacheMb: number; minFreeMb: number };
  redis: { url: string } | null;
  embedding: { voyageApiKey?: string; voyageBaseUrl?: string; model: string; dimension?: number };
  llm: { anthropicApiKey?: string; anthropicBaseUrl?: string; model: string; maxTokens: number };
  /** Chat and FAQ answers: passage and history budgets (estimated tokens), the Voyage reranker. */
  answers: { contextTokens: number; historyTokens: number; rerankModel: string };
  /**
   * The public FAQ: requests and cache misses per client address per minute, FAQs written by the
   * model per day across the service (0 allows none), and its passages' budget (estimated tokens).
   */
  faq: { namespaces: NamespaceName[]; requestsPerMinute: number; missesPerMinute: number; dailyLimit: number; contextTokens: number };
  /** Knowledge gaps: days a search or chat question stays in the query log (0: nothing is recorded). */
  insights: { queryLogDays: number };
  /**
   * Search: the most chunks a hybrid search's lexical ranking scores, so that its cost does not
   * grow with the store (0: no limit, exact BM25 whatever it costs).
   */
  search: { lexicalCandidates: number };
  wiki: { baseUrl?: string; email?: string; apiToken?: string };
  security: { adminPassword?: string; allowPrivateUrls: boolean; sessionTtlMs: number };
  /**
   * The embeddable assistant (publishable keys): the optional bot check (Turnstile or hCaptcha)
   * and how long the visitor token it earns lasts.
   */
  assistant: {
    botCheck: { provider: 'turnstile' | 'hcaptcha'; siteKey: string; secret: string; verifyUrl: string } | null;
    visitorTokenTtlMs: number;
  };
  /**
   * The MCP endpoint: its instructions to agents (default: made from the namespaces and their
   * documents), extra Host names a loopback-bound server answers, extra browser origins.
   */
  mcp: { instructions?: string; allowedHosts: string[]; allowedOrigins: string[] };
  /** Background jobs: worker concurrency, job lock, shutdown grace. */
  jobs: { queuePrefix: string; workerConcurrency: number; lockMs: number; shutdownGraceMs: number };
  /** Source syncs: requests at once and least spacing per host, a sync's time budget, how often embedded mode checks schedules. */
  sources: { hostConcurrency: number; minIntervalMs: number; maxSyncMs: number; scheduleCheckMs: number };
  /**
   * Metrics: off unless `enabled`; on the API port behind `token`, or on `port` of their own
   * (bound to `host`); a worker serves them on `workerPort`. Traces: exported over OTLP/HTTP
   * when `tracing` is set.
   */
  telemetry: {
    metrics: { enabled: boolean; token?: string; port?: number; host: string; workerPort: number };
    tracing: { endpoint: string; headers: Record<string, string>; serviceName: string } | null;
  };
  limits: {
    maxBodyBytes: number;
    maxSpecBytes: number;
    /** Largest file upload (POST /ingest/file's whole body). */
    maxFileBytes: number;
    maxFetchBytes: number;
    fetchTimeoutMs: number;
    maxRedirects: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: Array<{ variable: string; message: string }>) {
    super(
      `Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/** Parses the environment (process.env by default). Throws ConfigError naming every bad variable. */
export function loadConfig(env: EnvSource = process.env): Config {
  const problems: Array<{ variable: string; message: string }> = [];
  const parsed: Record<string, Record<string, unknown>> = {};
  for (const [concern, schema] of Object.entries(schemas)) {
    const result = schema.safeParse(env);
    if (result.success) {
      parsed[concern] = result.data as Record<string, unknown>;
    } else {
      for (const issue of result.error.issues) {
        problems.push({ variable: String(issue.path[0] ?? concern), message: issue.message });
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const server = parsed.server as z.infer<typeof serverSchema>;
  const storage = parsed.storage as z.infer<typeof storageSchema>;
  const redis = parsed.redis as z.infer<typeof redisSchema>;
  const embedding = parsed.embedding as z.infer<typeof embeddingSchema>;
  const llm = parsed.llm as z.infer<typeof llmSchema>;
  const answers = parsed.answers as z.infer<typeof answersSchema>;
  const faq = parsed.faq as z.infer<typeof faqSchema>;
  const wiki = parsed.wiki as z.infer<typeof wikiSchema>;
  const insights = parsed.insights as z.infer<typeof insightsSchema>;
  const sources = parsed.sources as z.infer<typeof sourcesSchema>;
  const search = parsed.search as z.infer<typeof searchSchema>;
  const security = parsed.security as z.infer<typeof securitySchema>;
  const assistant = parsed.assistant as z.infer<typeof assistantSchema>;
  const limits = parsed.limits as z.infer<typeof limitsSchema>;
  const jobs = parsed.jobs as z.infer<typeof jobsSchema>;
  const mcp = parsed.mcp as z.infer<typeof mcpSchema>;

  const telemetry = parsed.telemetry as z.infer<typeof telemetrySchema>;
  const tracesEndpoint =
    telemetry.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (telemetry.OTEL_EXPORTER_OTLP_ENDPOINT ? `${telemetry.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : undefined);

  return {
    server: {
      port: server.PORT,
      host: server.HOST,
      logLevel: server.LOG_LEVEL,
      production: server.NODE_ENV === 'production',
      trustProxy: server.KB_TRUST_PROXY !== null,
      trustedProxies: server.KB_TRUST_PROXY,
      publicOrigin: server.KB_PUBLIC_URL === undefined ? undefined : new URL(server.KB_PUBLIC_URL).origin,
    },
    storage: storage.DATABASE_URL
      ? {
          kind: 'postgres',
          databaseUrl: storage.DATABASE_URL,
          poolSize: storage.KB_DB_POOL_SIZE,
          replicaUrls: storage.DATABASE_REPLICA_URLS,
          replicaMaxLagMs: storage.KB_REPLICA_MAX_LAG_MS,
        }
      : { kind: 'pglite', dataDir: storage.KB_DATA_DIR, cacheMb: storage.KB_EMBEDDED_CACHE_MB, minFreeMb: storage.KB_EMBEDDED_MIN_FREE_MB },
    redis: redis.REDIS_URL ? { url: redis.REDIS_URL } : null,
    embedding: {
      voyageApiKey: embedding.VOYAGE_API_KEY,
      voyageBaseUrl: embedding.VOYAGE_BASE_URL,
      model: embedding.VOYAGE_MODEL,
      dimension: embedding.KB_EMBEDDING_DIM,
    },
    llm: {
      anthropicApiKey: llm.ANTHROPIC_API_KEY,
      anthropicBaseUrl: llm.ANTHROPIC_BASE_URL,
      model: llm.ANTHROPIC_MODEL,
      maxTokens: llm.KB_ANSWER_MAX_TOKENS,
    },
    answers: {
      contextTokens: answers.KB_CHAT_CONTEXT_TOKENS,
      historyTokens: answers.KB_CHAT_HISTORY_TOKENS,
      rerankModel: answers.VOYAGE_RERANK_MODEL,
    },
    faq: {
      namespaces: faq.KB_FAQ_NAMESPACES,
      requestsPerMinute: faq.KB_FAQ_HIT_RATE_LIMIT_PER_MINUTE,
      missesPerMinute: faq.KB_FAQ_RATE_LIMIT_PER_MINUTE,
      dailyLimit: faq.KB_FAQ_DAILY_LIMIT,
      contextTokens: faq.KB_FAQ_CONTEXT_TOKENS,
    },
    insights: { queryLogDays: insights.KB_QUERY_LOG_DAYS },
    search: { lexicalCandidates: search.KB_SEARCH_LEXICAL_CANDIDATES },
    wiki: { baseUrl: wiki.WIKI_BASE_URL, email: wiki.WIKI_EMAIL, apiToken: wiki.WIKI_API_TOKEN },
    security: {
      adminPassword: security.KB_ADMIN_PASSWORD,
      allowPrivateUrls: security.KB_ALLOW_PRIVATE_URLS,
      sessionTtlMs: security.KB_SESSION_TTL_HOURS * 3_600_000,
    },
    mcp: { instructions: mcp.KB_MCP_INSTRUCTIONS, allowedHosts: mcp.KB_MCP_ALLOWED_HOSTS.map((host) => host.toLowerCase()), allowedOrigins: mcp.KB_MCP_ALLOWED_ORIGINS },
    assistant: {
      botCheck: assistant.KB_BOT_CHECK_PROVIDER
        ? {
            provider: assistant.KB_BOT_CHECK_PROVIDER,
            siteKey: assistant.KB_BOT_CHECK_SITE_KEY!,
            secret: assistant.KB_BOT_CHECK_SECRET!,
            verifyUrl: assistant.KB_BOT_CHECK_VERIFY_URL ?? BOT_CHECK_VERIFY_URLS[assistant.KB_BOT_CHECK_PROVIDER],
          }
        : null,
      visitorTokenTtlMs: assistant.KB_VISITOR_TOKEN_TTL_MINUTES * 60_000,
    },
    limits: {
      maxBodyBytes: limits.KB_MAX_BODY_BYTES,
      maxSpecBytes: limits.KB_MAX_SPEC_BYTES,
      maxFileBytes: limits.KB_MAX_FILE_BYTES,
      maxFetchBytes: limits.KB_MAX_FETCH_BYTES,
      fetchTimeoutMs: limits.KB_FETCH_TIMEOUT_MS,
      maxRedirects: limits.KB_MAX_REDIRECTS,
    },
    sources: {
      hostConcurrency: sources.KB_SOURCE_HOST_CONCURRENCY,
      minIntervalMs: sources.KB_SOURCE_MIN_INTERVAL_MS,
      maxSyncMs: sources.KB_SOURCE_SYNC_MAX_MINUTES * 60_000,
      scheduleCheckMs: sources.KB_SOURCE_SCHEDULE_CHECK_SECONDS * 1000,
    },
    jobs: {
      queuePrefix: jobs.KB_QUEUE_PREFIX,
      workerConcurrency: jobs.KB_WORKER_CONCURRENCY,
      lockMs: jobs.KB_JOB_LOCK_MS,
      shutdownGraceMs: jobs.KB_SHUTDOWN_GRACE_MS,
    },
    telemetry: {
      metrics: {
        enabled: telemetry.KB_METRICS,
        ...(telemetry.KB_METRICS_TOKEN === undefined ? {} : { token: telemetry.KB_METRICS_TOKEN }),
        ...(telemetry.KB_METRICS_PORT === undefined ? {} : { port: telemetry.KB_METRICS_PORT }),
        host: telemetry.KB_METRICS_HOST,
        workerPort: telemetry.KB_WORKER_METRICS_PORT ?? 9464,
      },
      tracing:
        tracesEndpoint && !telemetry.OTEL_SDK_DISABLED
          ? { endpoint: tracesEndpoint, headers: otlpHeaders(telemetry.OTEL_EXPORTER_OTLP_HEADERS), serviceName: telemetry.OTEL_SERVICE_NAME }
          : null,
    },
  };
}

/** OTEL_EXPORTER_OTLP_HEADERS: `name=value` pairs, comma-separated, values percent-encoded (the OpenTelemetry specification's form). */
function otlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // A malformed escape: the pair is left out.
    }
  }
  return headers;
}

/** The variables loadConfig() reads, for documentation and checks. */
export const CONFIG_VARIABLES: readonly string[] = Object.values(schemas).flatMap((s) => Object.keys(s.shape));
