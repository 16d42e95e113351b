import createClient from 'openapi-fetch';
import { isAbort, KbError, kbErrorFrom, KbNetworkError } from './errors.js';
import type { paths } from './generated/openapi.js';
import { ChatStream } from './stream.js';
import { createTransport, type RetryOptions } from './transport.js';
import type {
  AdminLogin,
  AdminLogout,
  ChatAnswer,
  ChatInput,
  ConversationPage,
  ConversationsQuery,
  CreatedKey,
  CreateKeyInput,
  AssistantConfig,
  Feedback,
  FeedbackInput,
  FeedbackPage,
  FeedbackQuery,
  UpdateKeyInput,
  VisitorToken,
  ApiKey,
  Conversation,
  DeletedDocument,
  DeletedSource,
  CreateSourceInput,
  Source,
  SourceFailurePage,
  SourceFailuresQuery,
  SourcePage,
  SourcesQuery,
  SourceSyncAccepted,
  UpdateSourceInput,
  DocumentDetail,
  DocumentPage,
  DocumentsQuery,
  Faq,
  FaqQuery,
  GapPage,
  GapsQuery,
  IngestMarkdownInput,
  IngestFileResult,
  IngestFilesResult,
  IngestOpenApiResult,
  IngestResult,
  IngestUrlInput,
  IngestWikiInput,
  JobList,
  KeyList,
  Namespace,
  RevokedKey,
  SearchInput,
  ContextInput,
  Context,
  SearchResponse,
  WikiImportAccepted,
} from './types.js';

export interface KbClientOptions {
  /** The service's address, such as `http://localhost:3000` (`/api/v1` is added unless it is there). */
  baseUrl: string;
  /** An API key (`kb_...`), sent as `Authorization: Bearer`. The FAQ needs none. */
  apiKey?: string;
  /** The fetch to send requests with; default the global one. */
  fetch?: typeof fetch;
  /** Try 429 and 503 answers again after the wait they ask for (or a doubling backoff). Off by default. */
  retry?: boolean | RetryOptions;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Whether requests carry cookies, as fetch's `credentials`. The default, `same-origin`, sends
   * the admin session cookie (`auth.login`) to the service when the page comes from it; a page
   * from another origin needs `include` (and the service to allow it). Without `apiKey`, the
   * session is how admin calls are admitted.
   */
  credentials?: RequestCredentials;
}

/** Per-call options. */
export type CallOptions = {
  /** Cancels the call: it rejects with the signal's AbortError (or reason). */
  signal?: AbortSignal;
};

export type IngestOpenApiOptions = CallOptions & {
  /** Target namespace, default api_endpoints. */
  namespace?: Namespace;
  /** The text's format; default: JSON when it starts with "{", else YAML. Ignored for an object. */
  format?: 'json' | 'yaml';
};

/** A file's content: bytes, a Blob (a browser File), or a stream of bytes (a Node Readable, a ReadableStream). */
export type FileContent = Blob | ArrayBuffer | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export type IngestFileOptions = CallOptions & {
  namespace: Namespace;
  /** The file's name: its extension tells the type of an untyped file, and it is the default slug. A File's own name by default. */
  filename?: string;
  /** The file's media type (application/pdf, ...); default: a Blob's own type, else told from the name or the content. */
  type?: string;
  title?: string;
  slug?: string;
  /** The file's http(s) address: answers cite it (a PDF's with #page=N). */
  url?: string;
  folder?: string;
};

/** A file's content as a Blob: a stream is read whole (at most KB_MAX_FILE_BYTES is taken anyway), so a retry can send it again. */
async function fileBlob(content: FileContent, type: string | undefined): Promise<Blob> {
  if (content instanceof Blob) return type === undefined || type === content.type ? content : new Blob([content], { type });
  if (content instanceof ArrayBuffer || content instanceof Uint8Array) return new Blob([content as BlobPart], type ? { type } : {});
  const parts: Uint8Array[] = [];
  if (typeof (content as ReadableStream<Uint8Array>).getReader === 'function') {
    const reader = (content as ReadableStream<Uint8Array>).getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
  } else {
    for await (const part of content as AsyncIterable<Uint8Array>) parts.push(part);
  }
  return new Blob(parts as BlobPart[], type ? { type } : {});
}

/** `/api/v1` below the service's address, whichever of the two was given. */
export function apiBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/api/v1') ? trimmed : `${trimmed}/api/v1`;
}

type Outcome<T> = { data?: T; error?: unknown; response: Response };

/** The body of a success; any other answer thrown as a KbError, a broken connection as a KbNetworkError. */
async function unwrap<T>(call: Promise<Outcome<T>>): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await call;
  } catch (error) {
    if (error instanceof KbError || error instanceof KbNetworkError || isAbort(error)) throw error;
    throw new KbNetworkError(`The answer could not be read: ${(error as Error).message}`, { cause: error });
  }
  if (!outcome.response.ok) throw kbErrorFrom(outcome.response, outcome.error);
  return outcome.data as T;
}

/** A controller that aborts when `signal` does, so the SDK and the caller can both cancel. */
function linkedController(signal: AbortSignal | undefined): AbortController {
  const controller = new AbortController();
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller;
}

/**
 * A client of the knowledge base's REST API, typed from its OpenAPI document. Every method
 * resolves with the answer's body; a non-2xx answer rejects with a KbError, a failed connection
 * with a KbNetworkError.
 */
export function createKbClient(options: KbClientOptions) {
  // The global fetch is looked up per request, so one replaced later (tests, instrumentation) is used.
  const fetchImpl = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const api = createClient<paths>({
    baseUrl: apiBaseUrl(options.baseUrl),
    fetch: createTransport(fetchImpl, options.retry),
    headers: { ...options.headers, ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}) },
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });

  return {
    auth: {
      /**
       * Starts an admin session (KB_ADMIN_PASSWORD): the answer sets an HttpOnly session cookie,
       * which a browser then sends with every call. 401 for a wrong password, 503 when the
       * service has no admin password, 429 after 10 attempts a minute.
       */
      login: (password: string, call: CallOptions = {}): Promise<AdminLogin> => unwrap(api.POST('/auth/login', { body: { password }, ...call })),
      /** Ends the admin session and clears its cookie. */
      logout: (call: CallOptions = {}): Promise<AdminLogout> => unwrap(api.POST('/auth/logout', { body: {}, ...call })),
    },
    keys: {
      /** Creates a key (admin). The secret is in `key`, this once. */
      create: (input: CreateKeyInput, call: CallOptions = {}): Promise<CreatedKey> => unwrap(api.POST('/keys', { body: input, ...call })),
      /** Lists the keys, never their secrets (admin). */
      list: (call: CallOptions = {}): Promise<KeyList> => unwrap(api.GET('/keys', call)),
      /** Changes a key's label, limits, namespaces, or a publishable key's origins and budgets (admin). */
      update: (id: string, input: UpdateKeyInput, call: CallOptions = {}): Promise<ApiKey> =>
        unwrap(api.PATCH('/keys/{id}', { params: { path: { id } }, body: input, ...call })),
      /** Revokes a key (admin): 404 when there is no such key, 409 when it is already revoked. */
      revoke: (id: string, call: CallOptions = {}): Promise<RevokedKey> => unwrap(api.DELETE('/keys/{id}', { params: { path: { id } }, ...call })),
    },
    ingest: {
      /** Ingests a Markdown document; `skipped` when the same content was already stored. */
      markdown: (input: IngestMarkdownInput, call: CallOptions = {}): Promise<IngestResult> => unwrap(api.POST('/ingest/md', { body: input, ...call })),
      /** Fetches a page and ingests it (422 says why a URL could not be fetched). */
      url: (input: IngestUrlInput, call: CallOptions = {}): Promise<IngestResult> => unwrap(api.POST('/ingest/url', { body: input, ...call })),
      /** Ingests an OpenAPI or Swagger spec, given as its text (JSON or YAML) or as an object: one document per operation. */
      openapi: (spec: string | object, call: IngestOpenApiOptions = {}): Promise<IngestOpenApiResult> => {
        const text = typeof spec === 'string' ? spec : JSON.stringify(spec);
        const format = typeof spec === 'string' ? (call.format ?? (text.trimStart().startsWith('{') ? 'json' : 'yaml')) : 'json';
        return unwrap(
          api.POST('/ingest/openapi', {
            // The raw spec is the body, sent as it is.
            body: text as never,
            bodySerializer: (body: unknown) => body as string,
            headers: { 'Content-Type': format === 'json' ? 'application/json' : 'application/yaml' },
            params: { query: call.namespace ? { namespace: call.namespace } : {} },
            ...(call.signal ? { signal: call.signal } : {}),
          }),
        );
      },
      /**
       * Ingests a file: PDF, Word (.docx), HTML, Markdown or plain text, sent as the body with its
       * type. `skipped` when the same file was already stored; 422 says why a file cannot be read
       * (a scan without text, encrypted, corrupt), 415 names the types taken.
       */
      file: async (content: FileContent, options: IngestFileOptions): Promise<IngestFileResult> => {
        const { namespace, filename, type, title, slug, url, folder, ...call } = options;
        const blob = await fileBlob(content, type);
        const name = filename ?? (typeof File !== 'undefined' && content instanceof File ? content.name : undefined);
        const query = { namespace, ...(name ? { filename: name } : {}), ...(title ? { title } : {}), ...(slug ? { slug } : {}), ...(url ? { url } : {}), ...(folder ? { folder } : {}) };
        return unwrap(
          api.POST('/ingest/file', {
            body: blob as never,
            bodySerializer: (body: unknown) => body as Blob,
            headers: { 'Content-Type': blob.type || 'application/octet-stream' },
            params: { query },
            ...call,
          }),
        ) as Promise<IngestFileResult>;
      },
      /**
       * Ingests several files in one multipart request (each named by its file name, the slug by
       * default): each file's result, or why it was refused; rejects only when every file was.
       */
      files: async (
        files: ReadonlyArray<{ content: FileContent; filename: string; type?: string }>,
        options: Pick<IngestFileOptions, 'namespace' | 'folder'> & CallOptions,
      ): Promise<IngestFilesResult> => {
        const { namespace, folder, ...call } = options;
        const form = new FormData();
        for (const file of files) form.append('file', await fileBlob(file.content, file.type), file.filename);
        form.append('namespace', namespace);
        if (folder) form.append('folder', folder);
        const result = (await unwrap(api.POST('/ingest/file', { body: form as never, bodySerializer: (body: unknown) => body as FormData, ...call }))) as IngestFileResult | IngestFilesResult;
        // One file answers as `file` does.
        return 'documents' in result ? result : { documents: [result] };
      },
      /** Queues the import of a wiki space (202); follow it with `jobs()`. */
      wiki: (input: IngestWikiInput, call: CallOptions = {}): Promise<WikiImportAccepted> => unwrap(api.POST('/ingest/wiki', { body: input, ...call })),
      /** The last 100 ingestion jobs, newest first (admin). */
      jobs: (call: CallOptions = {}): Promise<JobList> => unwrap(api.GET('/ingest/jobs', call)),
    },
    /** Ranked passages for a query (no answer). */
    search: (input: SearchInput, call: CallOptions = {}): Promise<SearchResponse> => unwrap(api.POST('/search', { body: input, ...call })),
    /** The passages an answer would be written from, within a token budget, for an answer written by your own model. */
    context: (input: ContextInput, call: CallOptions = {}): Promise<Context> => unwrap(api.POST('/context', { body: input, ...call })),
    chat: {
      /** The whole answer at once (`stream: false`). */
      send: (input: ChatInput, call: CallOptions = {}): Promise<ChatAnswer> =>
        unwrap(api.POST('/chat', { body: { ...input, stream: false }, ...call })) as Promise<ChatAnswer>,
      /**
       * The answer as it is written: resolves once the service has accepted the question (a
       * refusal rejects with a KbError), with a ChatStream of typed events.
       */
      stream: async (input: ChatInput, call: CallOptions = {}): Promise<ChatStream> => {
        const controller = linkedController(call.signal);
        const body = await unwrap(
          api.POST('/chat', {
            body: { ...input, stream: true },
            headers: { Accept: 'text/event-stream' },
            parseAs: 'stream',
            signal: controller.signal,
          }),
        );
        if (!body) throw new KbNetworkError('The chat answer had no body', { cause: undefined });
        return new ChatStream(body as ReadableStream<Uint8Array>, controller);
      },
      /** Votes on an answer (its `messageId`): up, or down with reasons and a note; the last vote counts. */
      feedback: (input: FeedbackInput, call: CallOptions = {}): Promise<Feedback> => unwrap(api.POST('/chat/feedback', { body: input, ...call })),
    },
    /** Readers' votes on answers, most recent first (admin). */
    feedback: {
      list: (query: FeedbackQuery = {}, call: CallOptions = {}): Promise<FeedbackPage> => unwrap(api.GET('/feedback', { params: { query }, ...call })),
    },
    assistant: {
      /** What a publishable key may do from this page (no key header: the key goes in the query). */
      config: (publishableKey: string, call: CallOptions = {}): Promise<AssistantConfig> =>
        unwrap(api.GET('/assistant/config', { params: { query: { key: publishableKey } }, ...call })),
      /** Passes the bot check: the provider's challenge token for a visitor token (send it as X-Kb-Visitor). */
      visitor: (challengeToken: string, call: CallOptions = {}): Promise<VisitorToken> =>
        unwrap(api.POST('/assistant/visitor', { body: { token: challengeToken }, ...call })),
    },
    conversations: {
      /** Stored conversations with their messages, newest first (admin). */
      list: (query: ConversationsQuery = {}, call: CallOptions = {}): Promise<ConversationPage> =>
        unwrap(api.GET('/conversations', { params: { query }, ...call })),
      /** A conversation this key started (any, for an admin), with the votes on its answers. */
      get: (id: string, call: CallOptions = {}): Promise<Conversation> => unwrap(api.GET('/conversations/{id}', { params: { path: { id } }, ...call })),
    },
    documents: {
      /** Stored documents, most recently updated first (admin). */
      list: (query: DocumentsQuery = {}, call: CallOptions = {}): Promise<DocumentPage> =>
        unwrap(api.GET('/documents', { params: { query }, ...call })),
      /** A document with its Markdown and its chunks in order (any key, within its namespaces): 404 when there is no such document or it is outside them. */
      get: (id: string, call: CallOptions = {}): Promise<DocumentDetail> => unwrap(api.GET('/documents/{id}', { params: { path: { id } }, ...call })),
      /**
       * Deletes a document and its chunks (admin): 404 when there is no such document, or, with
       * `folder`, when it no longer records that folder.
       */
      delete: (id: string, { folder, ...call }: CallOptions & { folder?: string } = {}): Promise<DeletedDocument> =>
        unwrap(api.DELETE('/documents/{id}', { params: { path: { id }, query: folder === undefined ? {} : { folder } }, ...call })),
    },
    sources: {
      /** Adds a source (admin): a docs website by its start URL and/or sitemap; its first sync is queued unless `sync: false`. */
      create: (input: CreateSourceInput, call: CallOptions = {}): Promise<Source> => unwrap(api.POST('/sources', { body: input, ...call })),
      /** Sources, newest first (admin). */
      list: (query: SourcesQuery = {}, call: CallOptions = {}): Promise<SourcePage> => unwrap(api.GET('/sources', { params: { query }, ...call })),
      /** A source with its status, last and next sync and the page figures of the last sync (admin). */
      get: (id: string, call: CallOptions = {}): Promise<Source> => unwrap(api.GET('/sources/{id}', { params: { path: { id } }, ...call })),
      /** Changes a source's name, settings (scope) or schedule (admin). */
      update: (id: string, input: UpdateSourceInput, call: CallOptions = {}): Promise<Source> =>
        unwrap(api.PATCH('/sources/{id}', { params: { path: { id } }, body: input, ...call })),
      /** Deletes a source (admin), with its documents when `documents` is true. */
      delete: (id: string, { documents, ...call }: CallOptions & { documents?: boolean } = {}): Promise<DeletedSource> =>
        unwrap(api.DELETE('/sources/{id}', { params: { path: { id }, query: documents === undefined ? {} : { documents } }, ...call })),
      /** Queues a sync now (admin): 409 while one is queued or running. */
      sync: (id: string, call: CallOptions = {}): Promise<SourceSyncAccepted> => unwrap(api.POST('/sources/{id}/sync', { params: { path: { id } }, ...call })),
      /** The pages the last sync could not sync, with the reasons (admin). */
      failures: (id: string, query: SourceFailuresQuery = {}, call: CallOptions = {}): Promise<SourceFailurePage> =>
        unwrap(api.GET('/sources/{id}/failures', { params: { path: { id }, query }, ...call })),
    },
    insights: {
      /** The weakest recent searches and chat questions, repeats grouped (admin). */
      gaps: (query: GapsQuery = {}, call: CallOptions = {}): Promise<GapPage> => unwrap(api.GET('/insights/gaps', { params: { query }, ...call })),
    },
    /** An FAQ about a topic, made from the knowledge base (public: no key needed). */
    faq: (query: FaqQuery, call: CallOptions = {}): Promise<Faq> => unwrap(api.GET('/faq', { params: { query }, ...call })),
  };
}

export type KbClient = ReturnType<typeof createKbClient>;
