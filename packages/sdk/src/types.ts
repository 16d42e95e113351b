import type { components, operations } from './generated/openapi.js';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type Success<O> = O extends { responses: infer R } ? Json<R[Extract<keyof R, 200 | 201 | 202>]> : never;
type RequestBody<O> = O extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
type Query<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type Schemas = components['schemas'];

/** Namespaces the knowledge base is divided into. */
export type Namespace = RequestBody<operations['ingest-markdown']>['namespace'];

export type AdminLogin = Success<operations['auth-login']>;
export type AdminLogout = Success<operations['auth-logout']>;

export type CreateKeyInput = RequestBody<operations['keys-create']>;
export type CreatedKey = Schemas['CreatedApiKey'];
export type ApiKey = Schemas['ApiKey'];
export type KeyList = Success<operations['keys-list']>;
export type RevokedKey = Success<operations['keys-revoke']>;
/** The fields `keys.update` changes (the id is its first argument). */
export type UpdateKeyInput = Omit<RequestBody<operations['keys-update']>, 'id'>;
export type KeyKind = ApiKey['kind'];

export type IngestMarkdownInput = RequestBody<operations['ingest-markdown']>;
export type IngestUrlInput = RequestBody<operations['ingest-url']>;
export type IngestResult = Schemas['IngestResult'];
export type IngestOpenApiResult = Success<operations['ingest-openapi']>;
export type IngestFileResult = Schemas['IngestFileResult'];
export type IngestFilesResult = Schemas['IngestFilesResult'];
export type IngestWikiInput = RequestBody<operations['ingest-wiki']>;
export type WikiImportAccepted = Success<operations['ingest-wiki']>;
export type JobList = Success<operations['ingest-jobs']>;
export type Job = JobList['jobs'][number];

export type SearchInput = RequestBody<operations['search']>;
export type SearchResponse = Success<operations['search']>;
export type SearchResult = Schemas['SearchResult'];

export type ContextInput = RequestBody<operations['context']>;
export type Context = Schemas['Context'];
export type ContextPassage = Schemas['ContextPassage'];

/** A chat request; `stream` is chosen by the method (`send` or `stream`). */
export type ChatInput = Omit<Schemas['ChatRequest'], 'stream'>;
export type ChatAnswer = Schemas['ChatAnswer'];
export type FeedbackInput = RequestBody<operations['chat-feedback']>;
export type Feedback = Schemas['Feedback'];
export type FeedbackReason = NonNullable<FeedbackInput['reasons']>[number];
export type FeedbackQuery = Query<operations['feedback-list']>;
export type FeedbackPage = Success<operations['feedback-list']>;
export type FeedbackEntry = Schemas['FeedbackEntry'];
export type AssistantConfig = Schemas['AssistantConfig'];
export type VisitorToken = Schemas['VisitorToken'];

export type ConversationsQuery = Query<operations['conversations-list']>;
export type ConversationPage = Success<operations['conversations-list']>;
export type Conversation = Schemas['Conversation'];
export type ConversationMessage = Schemas['ConversationMessage'];

export type DocumentsQuery = Query<operations['documents-list']>;
export type DocumentPage = Success<operations['documents-list']>;
export type Document = Schemas['Document'];
export type DocumentDetail = Schemas['DocumentDetail'];
export type DeletedDocument = Success<operations['documents-delete']>;

export type GapsQuery = Query<operations['insights-gaps']>;
export type GapPage = Success<operations['insights-gaps']>;
export type KnowledgeGap = Schemas['KnowledgeGap'];

export type FaqQuery = Query<operations['faq-get']>;
export type Faq = Schemas['Faq'];

export type Source = Schemas['Source'];
export type SourceFailure = Schemas['SourceFailure'];
export type WebsiteSourceSettings = Schemas['WebsiteSourceSettings'];
export type ConfluenceSourceSettings = Schemas['ConfluenceSourceSettings'];
export type CreateSourceInput = RequestBody<operations['sources-create']>;
export type UpdateSourceInput = RequestBody<operations['sources-update']>;
export type SourcesQuery = Query<operations['sources-list']>;
export type SourcePage = Success<operations['sources-list']>;
export type SourceFailuresQuery = Query<operations['sources-failures']>;
export type SourceFailurePage = Success<operations['sources-failures']>;
export type DeletedSource = Success<operations['sources-delete']>;
export type SourceSyncAccepted = Success<operations['sources-sync']>;
