import type { ApiServices } from '@kb/api';
import type { Config } from '@kb/config';
import {
  AdminSessions,
  ApiKeysRepository,
  ApiKeysService,
  AssistantService,
  BotCheck,
  FeedbackRepository,
  FeedbackService,
  PublishableLimits,
  VisitorTokens,
  BullJobQueue,
  BullSourceScheduler,
  ChatService,
  ConversationsRepository,
  ConversationsService,
  createAnswers,
  createFaqService,
  createSourceSyncHandler,
  createWikiImportHandler,
  DocumentsService,
  QueryLog,
  QueryLogRepository,
  InProcessJobQueue,
  IngestionService,
  JobRunner,
  JobsRepository,
  LexicalTermsBackfill,
  OpenApiIngestion,
  SearchService,
  SearchUseCase,
  ContextUseCase,
  SlidingWindowRateLimiter,
  SourcesRepository,
  SourcesService,
  StoreSourceScheduler,
  UrlIngestion,
  FileIngestion,
  UsageTracker,
  WikiImports,
  type Answers,
  type Embedder,
  type JobQueue,
  type Logger,
  NO_METRICS,
  type PrometheusMetrics,
  useMetrics,
} from '@kb/core';
import type { Database } from '@kb/db';
import type { Redis } from 'ioredis';
import { createProcessMetrics } from './metrics-endpoint.ts';

/**
 * The composition root's product: what the API calls (ApiServices), and what the server and the
 * worker themselves use, built once per process from the configuration.
 */
export interface Services extends ApiServices {
  config: Config;
  database: Database;
  logger: Logger;
  redis: Redis | null;
  embedder: Embedder;
  jobs: {
    repository: JobsRepository;
    runner: JobRunner;
    /** In-process in embedded mode (no REDIS_URL), BullMQ otherwise. */
    queue: JobQueue;
  };
  /** Retrieval, answerer and language handling shared by chat and the FAQ. */
  answers: Answers;
  /** The process's Prometheus metrics (KB_METRICS), or null when they are off. */
  metrics: PrometheusMetrics | null;
  /** Starts background work: in embedded mode, runs jobs left unfinished by an earlier process. */
  start(): Promise<void>;
  /** Flushes buffered writes and stops timers (not the database or Redis: their owner closes them). */
  stop(): Promise<void>;
}

export function createServices(deps: {
  config: Config;
  database: Database;
  logger: Logger;
  redis: Redis | null;
  embedder: Embedder;
  /** Which process the services are for (the metrics' `process` label). */
  process?: 'server' | 'worker';
}): Services {
  const { config, database, logger, redis, embedder } = deps;
  const keysRepository = new ApiKeysRepository(database.db);
  const keys = new ApiKeysService(keysRepository);
  const usage = new UsageTracker(keysRepository, logger);
  usage.start();
  const ingestion = new IngestionService(database, embedder, logger);
  const jobsRepository = new JobsRepository(database.db);
  const sourcesRepository = new SourcesRepository(database.db);
  const fetchLimits = {
    allowPrivate: config.security.allowPrivateUrls,
    maxBytes: config.limits.maxFetchBytes,
    timeoutMs: config.limits.fetchTimeoutMs,
    maxRedirects: config.limits.maxRedirects,
  };
  const runner = new JobRunner(
    jobsRepository,
    {
      wiki: createWikiImportHandler({ settings: config.wiki, ingestion }),
      // A site's linked files (PDFs) have the limit of uploaded files.
      'source-sync': createSourceSyncHandler({ sources: sourcesRepository, ingestion, fetch: { ...fetchLimits, maxBinaryBytes: config.limits.maxFileBytes }, limits: config.sources, wiki: config.wiki }),
    },
    logger,
    {
      secrets: [
        config.wiki.apiToken,
        config.embedding.voyageApiKey,
        config.llm.anthropicApiKey,
        config.security.adminPassword,
        config.assistant.botCheck?.secret,
      ],
    },
  );
  const search = new SearchService(database, embedder, logger, { lexicalCandidates: config.search.lexicalCandidates });
  const answers = createAnswers({ config, database, search, logger });
  const conversations = new ConversationsRepository(database);
  const queryLog = new QueryLog(new QueryLogRepository(database.db, database.reads.db), logger, { retentionDays: config.insights.queryLogDays });
  const rateLimiter = new SlidingWindowRateLimiter(redis ? { redis } : {});
  const feedbackRepository = new FeedbackRepository(database.db, database.reads.db);
  const assistant = new AssistantService(
    keys,
    new VisitorTokens(database.db, { ttlMs: config.assistant.visitorTokenTtlMs }),
    new PublishableLimits(rateLimiter, config.jobs.queuePrefix),
    config.assistant.botCheck ? new BotCheck(config.assistant.botCheck, logger) : null,
  );
  const faq = createFaqService({ config, database, answers, rateLimiter, logger });
  const queue: JobQueue = config.redis
    ? new BullJobQueue({ redisUrl: config.redis.url, prefix: config.jobs.queuePrefix })
    : new InProcessJobQueue(runner, jobsRepository, logger);
  const sources = new SourcesService(sourcesRepository, jobsRepository, queue, ingestion, logger, config.wiki);
  // Schedules: BullMQ job schedulers in services mode; the store, checked by a timer here, in embedded mode.
  const storeScheduler = queue instanceof InProcessJobQueue ? new StoreSourceScheduler(sources, logger, config.sources.scheduleCheckMs) : null;
  sources.useScheduler(queue instanceof BullJobQueue ? new BullSourceScheduler(queue) : storeScheduler!);
  const metrics = createProcessMetrics(config, { database, jobs: jobsRepository, queue }, deps.process ?? 'server');
  let backfill: AbortController | undefined;
  let filling: Promise<void> | undefined;
  return {
    config,
    database,
    logger,
    redis,
    keys,
    usage,
    rateLimiter,
    sessions: new AdminSessions(database.db, {
      adminPassword: config.security.adminPassword,
      ttlMs: config.security.sessionTtlMs,
    }),
    embedder,
    ingestion,
    urlIngestion: new UrlIngestion(ingestion, fetchLimits, logger),
    fileIngestion: new FileIngestion(ingestion, config.limits.maxFileBytes, logger),
    openApiIngestion: new OpenApiIngestion(ingestion, logger),
    search: new SearchUseCase(search, queryLog),
    context: new ContextUseCase(answers.retriever, queryLog, { defaultTokens: config.answers.contextTokens }),
    jobs: { repository: jobsRepository, runner, queue },
    wikiImports: new WikiImports(jobsRepository, queue, config.wiki, logger),
    sources,
    answers,
    metrics,
    chat: new ChatService(conversations, answers, logger, queryLog),
    conversations: new ConversationsService(conversations, feedbackRepository),
    feedback: new FeedbackService(feedbackRepository),
    assistant,
    faq,
    documents: new DocumentsService(database, logger),
    queryLog,
    async start() {
      // Chunks written before they stored their hybrid ranking terms get them, in the background.
      backfill = new AbortController();
      filling = new LexicalTermsBackfill(database).start(logger, backfill.signal);
      if (queue instanceof InProcessJobQueue) await queue.start();
      storeScheduler?.start();
      faq.start();
      queryLog.start();
    },
    async stop() {
      backfill?.abort();
      await filling;
      await storeScheduler?.stop();
      await queue.close();
      await usage.stop();
      await queryLog.stop();
      await faq.stop();
      if (metrics) useMetrics(NO_METRICS);
    },
  };
}
