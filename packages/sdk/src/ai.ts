/**
 * The knowledge base for AI SDK apps (`ai`, an optional peer dependency): tools for an app's own
 * agent, and the bridge that serves `useChat` from the knowledge base's streamed answers.
 */
import { createUIMessageStream, createUIMessageStreamResponse, tool, type Tool, type UIMessage, type UIMessageChunk } from 'ai';
import { z } from 'zod';
import type { CallOptions, KbClient } from './client.js';
import type { ChatInput, Namespace } from './types.js';

/** What the bridge puts in the assistant message's metadata: continue with `conversationId`, vote on `messageId`. */
export interface KbMessageMetadata {
  conversationId: string;
  messageId: string;
}

/** A `useChat` message served by the bridge. */
export type KbUIMessage = UIMessage<KbMessageMetadata>;

export interface KbToolsOptions {
  /** Namespaces the tools read (within the key's); default every one the key may read. */
  namespaces?: Namespace[];
  /** Passages `search` returns unless the model asks for another number; default 5. */
  topK?: number;
  /** Ranking of `search`; default `hybrid` (meaning and exact words, better for names and codes). */
  mode?: 'semantic' | 'hybrid';
  /** Characters of a document `fetch_document` returns per call; default 20,000. */
  maxChars?: number;
  /** Token budget of `get_context` unless the model asks for another; default the service's chat budget. */
  maxTokens?: number;
}

const DEFAULT_MAX_CHARS = 20_000;

/** A passage `search` gives the model. */
export interface KbToolPassage {
  documentId: string;
  title: string;
  headingPath: string;
  url?: string | undefined;
  namespace: string;
  score: number;
  content: string;
}

/** A section `get_context` gives the model: `url` links to the section (url#anchor) when the document has one. */
export interface KbToolContextPassage {
  documentId: string;
  title: string;
  headingPath: string;
  url?: string | undefined;
  namespace: string;
  content: string;
  tokens: number;
}

/** What `get_context` gives the model. */
export interface KbToolContext {
  passages: KbToolContextPassage[];
  tokens: number;
}

/** A page of a document `fetch_document` gives the model. */
export interface KbToolDocumentPage {
  id: string;
  title: string;
  url?: string | undefined;
  namespace: string;
  content: string;
  offset: number;
  totalChars: number;
  nextOffset: number | null;
}

/** The tools `kbTools` makes, typed by what they take and give (so a declaration can name them). */
export interface KbTools {
  search: Tool<{ query: string; topK?: number | undefined }, KbToolPassage[]>;
  get_context: Tool<{ question: string; maxTokens?: number | undefined }, KbToolContext>;
  fetch_document: Tool<{ id: string; offset?: number | undefined }, KbToolDocumentPage>;
}

/**
 * AI SDK tools over the knowledge base, for `generateText`/`streamText`/agents: `search` (ranked
 * passages with their documents' ids, titles and URLs), `get_context` (the sections the service's
 * own chat would answer from, within a token budget) and `fetch_document` (a document's Markdown,
 * paged by character offset). Failures reach the model as tool errors.
 */
export function kbTools(client: KbClient, options: KbToolsOptions = {}): KbTools {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  return {
    search: tool({
      description:
        'Search the documentation knowledge base. Returns the most relevant passages, best first, each with its document title, heading path, URL, documentId and score. ' +
        'Call fetch_document with a documentId to read the whole page.',
      inputSchema: z.object({
        query: z.string().min(1).max(10_000).describe('What to look for, in natural language or keywords'),
        topK: z.number().int().min(1).max(20).optional().describe('How many passages to return (1-20)'),
      }),
      execute: async ({ query, topK }, { abortSignal }) => {
        const { results } = await client.search(
          {
            query,
            topK: topK ?? options.topK ?? 5,
            mode: options.mode ?? 'hybrid',
            ...(options.namespaces ? { source: options.namespaces } : {}),
          },
          abortSignal ? { signal: abortSignal } : {},
        );
        return results.map((r) => ({
          documentId: r.documentId,
          title: r.documentTitle,
          headingPath: r.headingPath,
          ...(r.url !== undefined ? { url: r.anchor !== undefined ? `${r.url}#${r.anchor}` : r.url } : {}),
          namespace: r.namespace,
          score: r.score,
          content: r.content,
        }));
      },
    }),
    get_context: tool({
      description:
        'The documentation sections that answer a question, most relevant first, within a token budget: answer from them and cite their URLs. ' +
        'An empty list means the documentation does not cover the question.',
      inputSchema: z.object({
        question: z.string().min(1).max(10_000).describe('The question to answer, as the user asked it'),
        maxTokens: z.number().int().min(200).max(32_000).optional().describe('Budget of the sections in estimated tokens (200-32000)'),
      }),
      execute: async ({ question, maxTokens }, { abortSignal }) => {
        const budget = maxTokens ?? options.maxTokens;
        const context = await client.context(
          { question, ...(budget !== undefined ? { maxTokens: budget } : {}), ...(options.namespaces ? { source: options.namespaces } : {}) },
          abortSignal ? { signal: abortSignal } : {},
        );
        return {
          passages: context.passages.map((p) => ({
            documentId: p.documentId,
            title: p.title,
            headingPath: p.headingPath,
            ...(p.url !== undefined ? { url: p.anchor !== undefined ? `${p.url}#${p.anchor}` : p.url } : {}),
            namespace: p.namespace,
            content: p.content,
            tokens: p.tokens,
          })),
          tokens: context.tokens,
        };
      },
    }),
    fetch_document: tool({
      description:
        `Read a document of the knowledge base by its documentId (from search). Returns its title, URL and Markdown, at most ${maxChars} characters per call; ` +
        'when nextOffset is not null, call again with that offset to read on.',
      inputSchema: z.object({
        id: z.string().min(1).max(100).describe("The document's id (a search result's documentId)"),
        offset: z.number().int().min(0).optional().describe('Character offset to start at: the previous call’s nextOffset'),
      }),
      execute: async ({ id, offset = 0 }, { abortSignal }) => {
        const doc = await client.documents.get(id, abortSignal ? { signal: abortSignal } : {});
        const end = Math.min(doc.content.length, offset + maxChars);
        return {
          id: doc.id,
          title: doc.title,
          ...(doc.url !== undefined ? { url: doc.url } : {}),
          namespace: doc.namespace,
          content: doc.content.slice(offset, end),
          offset,
          totalChars: doc.content.length,
          nextOffset: end < doc.content.length ? end : null,
        };
      },
    }),
  };
}

export interface KbChatStreamOptions extends CallOptions {
  /** The text of an error the stream reports (default: the service's own message). */
  onError?: (error: unknown) => string;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A knowledge-base answer as an AI SDK UI message stream: `start` with the conversation and
 * message ids as metadata, the sources as `source-url` parts (a source without a URL as a
 * `source-document` part), the text in order, then `finish`. A refusal or a failure midway is an
 * `error` chunk; `signal` aborting stops the answer on the service and ends the stream with `abort`.
 */
export function kbChatStream(client: KbClient, input: ChatInput, options: KbChatStreamOptions = {}): ReadableStream<UIMessageChunk<KbMessageMetadata>> {
  const { signal } = options;
  return createUIMessageStream<KbUIMessage>({
    execute: async ({ writer }) => {
      let textId: string | undefined;
      try {
        const stream = await client.chat.stream(input, signal ? { signal } : {});
        let metadata: KbMessageMetadata | undefined;
        for await (const event of stream) {
          if (event.type === 'meta') {
            metadata = { conversationId: event.conversationId, messageId: event.messageId };
            writer.write({ type: 'start', messageId: event.messageId, messageMetadata: metadata });
            for (const source of event.sources) {
              if (source.url !== undefined) {
                writer.write({ type: 'source-url', sourceId: source.documentId, url: source.anchor ? `${source.url}#${source.anchor}` : source.url, title: source.title });
              } else {
                writer.write({ type: 'source-document', sourceId: source.documentId, mediaType: 'text/markdown', title: source.title });
              }
            }
          } else if (event.type === 'chunk') {
            if (textId === undefined) {
              textId = `${metadata?.messageId ?? 'answer'}-text`;
              writer.write({ type: 'text-start', id: textId });
            }
            writer.write({ type: 'text-delta', id: textId, delta: event.text });
          } else {
            if (textId !== undefined) writer.write({ type: 'text-end', id: textId });
            writer.write({ type: 'error', errorText: options.onError ? options.onError(new Error(event.message)) : event.message });
            return;
          }
        }
        if (textId !== undefined) writer.write({ type: 'text-end', id: textId });
        writer.write({ type: 'finish', finishReason: 'stop', ...(metadata ? { messageMetadata: metadata } : {}) });
      } catch (error) {
        if (signal?.aborted) {
          writer.write({ type: 'abort', reason: 'The request was aborted' });
          return;
        }
        throw error;
      }
    },
    onError: (error) => (options.onError ? options.onError(error) : errorText(error)),
  });
}

/**
 * The `useChat` route in one call: the knowledge base's answer to `input` as a UI message stream
 * response. In a Next.js route handler, pass `request.signal` so a closed tab stops the answer.
 */
export function kbChatResponse(client: KbClient, input: ChatInput, options: KbChatStreamOptions & { headers?: HeadersInit } = {}): Response {
  const { headers, ...streamOptions } = options;
  return createUIMessageStreamResponse({ stream: kbChatStream(client, input, streamOptions), ...(headers ? { headers } : {}) });
}

/** The text of the last user message of a `useChat` request, the question to send. */
export function lastUserText(messages: readonly UIMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return (last?.parts ?? [])
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
    .map((part) => part.text)
    .join('\n')
    .trim();
}
