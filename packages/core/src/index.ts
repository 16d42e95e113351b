export { APP_ERROR_STATUS, AppError, isAppError, unavailableError } from './errors.ts';
export type { AppErrorCode, AppErrorOptions } from './errors.ts';
export { createLogger, REDACTED_PATHS } from './logger.ts';
export { requestScope, type RequestScope } from './request-scope.ts';
export type { Logger } from './logger.ts';
export { isUuid } from './ids.ts';
export { ApiKeysService } from './keys/keys.service.ts';
export { ApiKeysRepository } from './keys/keys.repository.ts';
export { UsageTracker } from './keys/usage-tracker.ts';
export { generateApiKey, looksLikeApiKey, PUBLISHABLE_KEY_PREFIX, sha256Hex } from './keys/secret.ts';
export { PUBLISHABLE_DEFAULTS } from './keys/types.ts';
export type { ApiKeyView, AuthenticatedKey, CreateApiKeyInput, CreatedApiKey, KeyKind, UpdateApiKeyInput } from './keys/types.ts';
export { formatOriginPattern, MAX_ALLOWED_ORIGINS, originAllowed, parseOrigin, parseOriginPattern, sameOrigin } from './keys/origins.ts';
export type { OriginPattern } from './keys/origins.ts';
export { keyPrincipal, SESSION_PRINCIPAL } from './auth/principal.ts';
export type { Principal } from './auth/principal.ts';
export * from './assistant/index.ts';
export * from './feedback/index.ts';
export { AdminSessions, SESSION_COOKIE } from './auth/admin-sessions.ts';
export { RateLimiterUnavailableError, rateLimitHeaders, SlidingWindowRateLimiter } from './ratelimit/rate-limiter.ts';
export type { RateLimitDecision, WindowLimit } from './ratelimit/rate-limiter.ts';
export { openStore } from './store.ts';
export type { OpenStoreOptions, Store } from './store.ts';
export { SERVICE_VERSION } from './version.ts';
export { NAMESPACES, assertInScope, isNamespace, resolveNamespaces } from './namespaces.ts';
export type { Namespace, NamespaceScope } from './namespaces.ts';
export {
  checkStoreEmbedding,
  createEmbedder,
  EmbeddingMismatchError,
  LocalEmbedder,
  readStoreEmbedding,
  VoyageEmbedder,
  writeStoreEmbedding,
} from './embeddings/index.ts';
export type { Embedder, EmbeddingInputType } from './embeddings/index.ts';
export { ReindexService, REINDEX_BATCH } from './embeddings/reindex.service.ts';
export { IngestionService } from './ingestion/ingestion.service.ts';
export type { IngestDocumentInput, IngestResult } from './ingestion/ingestion.service.ts';
export { SearchService } from './search/search.service.ts';
export type { SearchInput, SearchMode, SearchResult } from './search/search.service.ts';
export { DEFAULT_SEARCH_TOP_K, SearchUseCase, withAnchor } from './search/search.use-case.ts';
export type { SearchHit, SearchRequest } from './search/search.use-case.ts';
export { ContextUseCase, MAX_CONTEXT_TOKENS, MIN_CONTEXT_TOKENS } from './context/context.use-case.ts';
export type { ContextPassage, ContextRequest, ContextResult } from './context/context.use-case.ts';
// The search's own ranking, for evaluations that run it outside the store (the CLI's bench).
export { HYBRID_DEFAULTS, hybridLexicalAnalyzer, hybridRank } from './search/hybrid.ts';
export type { HybridCandidate, HybridStatistics, RankedHit } from './search/hybrid.ts';
export { rocchio } from './search/prf.ts';
export { LEXICAL_TERMS_BATCH, LexicalTermsBackfill } from './search/lexical-terms.backfill.ts';
export { UrlIngestion } from './ingestion/url-ingestion.ts';
export { FileIngestion, fileRefusal } from './ingestion/file-ingestion.ts';
export type { FileOutcome, IngestFileInput, IngestFileResult } from './ingestion/file-ingestion.ts';
export type { IngestUrlInput } from './ingestion/url-ingestion.ts';
export { OpenApiIngestion } from './openapi/openapi-ingestion.ts';
export type { IngestOpenApiInput, IngestOpenApiResult } from './openapi/openapi-ingestion.ts';
export {
  BullJobQueue,
  InProcessJobQueue,
  JobRunner,
  JobsRepository,
  JobWorker,
  JOB_QUEUE_NAME,
  REDIS_COMMAND_TIMEOUT_MS,
  spaceKeySchema,
  toJobView,
} from './jobs/index.ts';
export type { JobHandlers, JobQueue, JobView } from './jobs/index.ts';
export { WikiImports } from './wiki/wiki-imports.ts';
export { createWikiImportHandler, missingWikiSettings, wikiSlug } from './wiki/wiki-import.ts';
export * from './sources/index.ts';
export * from './answers/index.ts';
export * from './chat/index.ts';
export * from './faq/index.ts';
export { DEFAULT_DOCUMENTS_PAGE, DocumentsService, MAX_DOCUMENTS_PAGE } from './documents/documents.service.ts';
export type { DocumentDetailView, DocumentView } from './documents/documents.service.ts';
export { documentUrl } from './ingestion/ingestion.service.ts';
export { DEFAULT_GAPS_PAGE, MAX_GAPS_PAGE, normalizeQuery, QueryLog } from './insights/query-log.ts';
export type { GapView } from './insights/query-log.ts';
export { QueryLogRepository } from './insights/query-log.repository.ts';
export { backupStoreOf, checkBackupEmbedding } from './backup/index.ts';
export * from './telemetry/index.ts';
