export { apiBaseUrl, createKbClient } from './client.js';
export type { CallOptions, FileContent, IngestFileOptions, IngestOpenApiOptions, KbClient, KbClientOptions } from './client.js';
export { KbError, kbErrorFrom, KbNetworkError, retryAfterSeconds } from './errors.js';
export type { ErrorBody, ErrorCode, InputIssue } from './errors.js';
export { ChatStream } from './stream.js';
export type { ChatChunkEvent, ChatErrorEvent, ChatEvent, ChatMetaEvent, ChatSource, ChatStreamResult } from './stream.js';
export type { RetryOptions } from './transport.js';
export type * from './types.js';
export type { components, operations, paths } from './generated/openapi.js';
