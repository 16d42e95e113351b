import type { ApiKeysTable } from './tables/api-keys.ts';
import type { AdminSessionsTable } from './tables/admin-sessions.ts';
import type { ChunksTable, ParentChunksTable } from './tables/chunks.ts';
import type { ConversationsTable, MessagesTable } from './tables/conversations.ts';
import type { DocumentsTable } from './tables/documents.ts';
import type { FaqCacheTable, FaqGenerationsTable } from './tables/faq-cache.ts';
import type { IngestionJobsTable } from './tables/ingestion-jobs.ts';
import type { MessageFeedbackTable } from './tables/message-feedback.ts';
import type { NamespacesTable } from './tables/namespaces.ts';
import type { QueryLogTable } from './tables/query-log.ts';
import type { SourcePagesTable, SourcesTable } from './tables/sources.ts';
import type { StoreMetaTable } from './tables/store-meta.ts';

export interface DB {
  namespaces: NamespacesTable;
  documents: DocumentsTable;
  parent_chunks: ParentChunksTable;
  chunks: ChunksTable;
  api_keys: ApiKeysTable;
  admin_sessions: AdminSessionsTable;
  conversations: ConversationsTable;
  messages: MessagesTable;
  message_feedback: MessageFeedbackTable;
  ingestion_jobs: IngestionJobsTable;
  faq_cache: FaqCacheTable;
  faq_generations: FaqGenerationsTable;
  store_meta: StoreMetaTable;
  query_log: QueryLogTable;
  sources: SourcesTable;
  source_pages: SourcePagesTable;
}

export type { JobProgress, JobStatus } from './tables/ingestion-jobs.ts';
export type { SourcePageStatus, SourceSyncStats, SourceSyncStatus } from './tables/sources.ts';
