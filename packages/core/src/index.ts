export { APP_ERROR_STATUS, AppError, isAppError } from './errors.ts';
export type { AppErrorCode, AppErrorOptions } from './errors.ts';
export { createLogger, REDACTED_PATHS } from './logger.ts';
export type { Logger } from './logger.ts';
export { isUuid } from './ids.ts';
export { illFormedTextPath, isIllFormedText, wellFormedText } from './unicode.ts';
export { ApiKeysService } from './keys/keys.service.ts';
export { ApiKeysRepository } from './keys/keys.repository.ts';
export { UsageTracker } from './keys/usage-tracker.ts';
export { generateApiKey, looksLikeApiKey, sha256Hex } from './keys/secret.ts';
export type { ApiKeyView, AuthenticatedKey, CreateApiKeyInput, CreatedApiKey } from './keys/types.ts';
export { AdminSessions, SESSION_COOKIE } from './auth/admin-sessions.ts';
export { RateLimiterUnavailableError, rateLimitHeaders, SlidingWindowRateLimiter } from './ratelimit/rate-limiter.ts';
export type { RateLimitDecision, WindowLimit } from './ratelimit/rate-limiter.ts';
export { createServices } from './services.ts';
export type { Services } from './services.ts';
export { SERVICE_VERSION } from './version.ts';
export { NAMESPACES, isNamespace } from './namespaces.ts';
export type { Namespace } from './namespaces.ts';
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
export { IngestionService } from './ingestion/ingestion.service.ts';
export type { IngestDocumentInput, IngestResult } from './ingestion/ingestion.service.ts';
export { SearchService } from './search/search.service.ts';
export type { SearchInput, SearchMode, SearchResult } from './search/search.service.ts';
export { UrlIngestion } from './ingestion/url-ingestion.ts';
export type { IngestUrlInput } from './ingestion/url-ingestion.ts';
export { OpenApiIngestion } from './ingestion/openapi-ingestion.ts';
export type { IngestOpenApiInput, IngestOpenApiResult } from './ingestion/openapi-ingestion.ts';
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
export { warmUpSpecWorker } from './openapi/index.ts';
export * from './answers/index.ts';
export * from './chat/index.ts';
export * from './faq/index.ts';
