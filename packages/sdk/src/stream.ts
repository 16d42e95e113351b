import { EventSourceParserStream } from 'eventsource-parser/stream';
import { KbNetworkError } from './errors.js';
import type { components } from './generated/openapi.js';

type Schemas = components['schemas'];
export type ChatMetaEvent = Schemas['ChatMetaEvent'];
export type ChatChunkEvent = Schemas['ChatChunkEvent'];
export type ChatErrorEvent = Schemas['ChatErrorEvent'];
/** One event of a streamed answer: `meta` first, then `chunk`s in order; `error` if it failed midway. */
export type ChatEvent = Schemas['ChatStreamEvent'];
export type ChatSource = Schemas['ChatSource'];

/** A streamed answer, collected. */
export interface ChatStreamResult {
  conversationId: string;
  /** The answer's id, for feedback (`chat.feedback`). */
  messageId: string;
  /** The answer (Markdown): every chunk, in order. */
  answer: string;
  /** The documents the answer draws on, best first. */
  sources: ChatSource[];
  /** Set when the answer failed after it started (the service's error event): `answer` holds what came before. */
  error?: string;
}

const EVENT_TYPES = new Set(['meta', 'chunk', 'error']);

/**
 * The events of a chat answer as they arrive: iterate it once with `for await`, or `collect()`
 * the whole answer. Cancel with the AbortSignal given to `chat.stream` or with `abort()`: the
 * connection closes and iteration rejects with an AbortError. Leaving a `for await` loop early
 * (break, return, throw) closes the connection too.
 */
export class ChatStream implements AsyncIterable<ChatEvent> {
  #used = false;

  constructor(
    private readonly body: ReadableStream<Uint8Array>,
    private readonly controller: AbortController,
  ) {}

  /** Stops the answer: the connection is closed and iteration rejects with an AbortError. */
  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ChatEvent> {
    if (this.#used) throw new Error('A chat stream can be read once');
    this.#used = true;
    // TypeScript's DOM types declare a decoder's input as BufferSource, which a byte stream is.
    const decoder = new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>;
    const reader = this.body.pipeThrough(decoder).pipeThrough(new EventSourceParserStream()).getReader();
    let finished = false;
    try {
      for (;;) {
        let next: ReadableStreamReadResult<{ data: string }>;
        try {
          next = await reader.read();
        } catch (error) {
          if (this.controller.signal.aborted) throw this.controller.signal.reason;
          throw new KbNetworkError('The answer stream broke off', { cause: error });
        }
        // Events already received are not handed out once the caller has cancelled.
        if (this.controller.signal.aborted) throw this.controller.signal.reason;
        if (next.done) throw new KbNetworkError('The answer stream ended before it was complete', { cause: undefined });
        const { data } = next.value;
        if (data === '[DONE]') {
          finished = true;
          return;
        }
        const event = JSON.parse(data) as ChatEvent;
        // Event types this client does not know (a newer service) are passed over.
        if (EVENT_TYPES.has(event.type)) yield event;
      }
    } finally {
      if (!finished) {
        // Leaving early: close the connection (the service stops writing the answer). Aborting the
        // request does it at once; cancelling the piped reader alone can wait on the pipe.
        this.controller.abort();
        void reader.cancel().catch(() => undefined);
      }
    }
  }

  /** Reads the whole answer: the conversation, the text, its sources, and the error that ended it early if any. */
  async collect(): Promise<ChatStreamResult> {
    const result: ChatStreamResult = { conversationId: '', messageId: '', answer: '', sources: [] };
    for await (const event of this) {
      if (event.type === 'meta') {
        result.conversationId = event.conversationId;
        result.messageId = event.messageId;
        result.sources = event.sources;
      } else if (event.type === 'chunk') {
        result.answer += event.text;
      } else {
        result.error = event.message;
      }
    }
    return result;
  }
}
