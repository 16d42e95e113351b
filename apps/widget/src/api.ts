import { ChatStream, KbError, kbErrorFrom, KbNetworkError, type AssistantConfig, type ChatSource, type Conversation as KbConversation, type FeedbackReason } from '@kb/sdk';

/**
 * What the assistant asks of the server, with its publishable key (docs/assistant.md): the
 * key's settings, the bot check, the chat stream (read by the SDK's ChatStream), feedback and a
 * stored conversation. Every failure is a KbError (the server's words, its status, Retry-After)
 * or a KbNetworkError; never cookies (`credentials: 'omit'`): the key alone speaks for the page.
 */

export type { AssistantConfig } from '@kb/sdk';

/** A source as the assistant shows it: its document's address, and its section's anchor when the server gives one. */
export type Source = ChatSource;

/** A stored conversation, as the server gives it to the key that started it. */
export type Conversation = KbConversation;
export type ConversationMessage = Conversation['messages'][number];

export const FEEDBACK_REASONS = ['incorrect', 'incomplete', 'not_what_i_asked', 'outdated', 'other'] as const satisfies readonly FeedbackReason[];
export type { FeedbackReason };

export class AssistantApi {
  /** The bot check's pass, once earned (sent as X-Kb-Visitor). */
  visitorToken: string | undefined;

  constructor(
    /** The server's address (where the script came from), without a trailing slash. */
    readonly server: string,
    readonly key: string,
  ) {}

  private url(path: string): string {
    return `${this.server}/api/v1${path}`;
  }

  private headers(json: boolean): Record<string, string> {
    return {
      Authorization: `Bearer ${this.key}`,
      ...(json ? { 'Content-Type': 'application/json' } : {}),
      ...(this.visitorToken ? { 'X-Kb-Visitor': this.visitorToken } : {}),
    };
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(this.url(path), { ...init, mode: 'cors', credentials: 'omit' });
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason;
      throw new KbNetworkError(`Could not reach the assistant at ${this.server}`, { cause: error });
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not the server's JSON (a proxy's page): kbErrorFrom keeps its text.
      }
      throw kbErrorFrom(response, body);
    }
    return response;
  }

  private async json<T>(path: string, init: RequestInit): Promise<T> {
    const response = await this.send(path, init);
    try {
      return (await response.json()) as T;
    } catch (error) {
      throw new KbNetworkError('The answer could not be read', { cause: error });
    }
  }

  /** The key's namespaces, bot check and limits. A simple GET (no header, so no preflight): 403 on a page the key does not allow. */
  config(): Promise<AssistantConfig> {
    return this.json(`/assistant/config?key=${encodeURIComponent(this.key)}`, { method: 'GET' });
  }

  /** Trades a bot check's token for a visitor token, kept for later requests. */
  async visitor(token: string): Promise<void> {
    const answer = await this.json<{ visitorToken: string }>('/assistant/visitor', { method: 'POST', headers: this.headers(true), body: JSON.stringify({ token }) });
    this.visitorToken = answer.visitorToken;
  }

  /** Asks a question: resolves once the server has taken it, with the answer's events. */
  async chat(input: { message: string; conversationId?: string; source?: string[] }, signal: AbortSignal): Promise<ChatStream> {
    const controller = new AbortController();
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    const response = await this.send('/chat', {
      method: 'POST',
      headers: { ...this.headers(true), Accept: 'text/event-stream' },
      body: JSON.stringify({ ...input, stream: true }),
      signal: controller.signal,
    });
    if (!response.body) throw new KbNetworkError('The answer had no body', { cause: undefined });
    return new ChatStream(response.body, controller);
  }

  /** A vote on an answer; the last one counts. */
  feedback(input: { messageId: string; rating: 'up' | 'down'; reasons?: FeedbackReason[]; note?: string }): Promise<unknown> {
    return this.json('/chat/feedback', { method: 'POST', headers: this.headers(true), body: JSON.stringify(input) });
  }

  /**
   * The FAQ of a topic (public, cached by the server for days): its "## Question?" headings are
   * questions the documentation answers, shown to a new reader as examples.
   */
  faq(topic: string, source: string): Promise<{ content: string }> {
    return this.json(`/faq?${new URLSearchParams({ q: topic, source })}`, { method: 'GET', headers: this.headers(false) });
  }

  /** A conversation this key started. */
  conversation(id: string): Promise<Conversation> {
    return this.json(`/conversations/${encodeURIComponent(id)}`, { method: 'GET', headers: this.headers(false) });
  }
}

/** A wait in words: "20 s", "3 min", "2 h". */
export function formatWait(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.ceil(seconds))} s`;
  if (seconds < 3600) return `${Math.ceil(seconds / 60)} min`;
  return `${Math.ceil(seconds / 3600)} h`;
}

/** What a visitor reads when something failed. */
export function describeError(error: unknown): { message: string; retryAfter?: number; kind: 'limit' | 'forbidden' | 'key' | 'bot' | 'other' } {
  if (error instanceof KbError) {
    if (error.status === 429) {
      const wait = error.retryAfter;
      const message = error.message || 'Too many questions for now.';
      return { kind: 'limit', message, ...(wait !== undefined ? { retryAfter: wait } : {}) };
    }
    if (error.status === 401 && /bot check/i.test(error.message)) return { kind: 'bot', message: error.message };
    if (error.status === 401) return { kind: 'key', message: 'This assistant is not set up correctly: its key is unknown or was revoked.' };
    if (error.status === 403 && /not allowed/i.test(error.message)) return { kind: 'forbidden', message: 'This site is not allowed to use this assistant.' };
    return { kind: 'other', message: error.message, ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}) };
  }
  if (error instanceof KbNetworkError) return { kind: 'other', message: 'The assistant could not be reached. Check your connection and try again.' };
  return { kind: 'other', message: 'Something went wrong. Try again.' };
}
