/**
 * Chat: what both the SSE route and the `stream: false` procedure call.
 *
 * `prepare` does everything that decides whether the request is accepted (the conversation
 * exists and the caller may continue it, the language) and stores the user's message; its
 * failures are ordinary errors. The prepared chat's `events` then retrieves, announces the
 * sources (`meta`), streams the answer (`chunk`s) and stores it; a failure from there on is an
 * `error` event, and the answer written so far is stored marked interrupted, as it is when the
 * caller's signal aborts (the client went away).
 */
import { inSpan } from '../telemetry/tracing.ts';
import { metrics, secondsSince } from '../telemetry/metrics.ts';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal.ts';
import { resolveNamespaces } from '../namespaces.ts';
import { AppError, isAppError, unavailableError } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { normalizeQuery, type QueryLog } from '../insights/query-log.ts';
import type { Answers } from '../answers/index.ts';
import { sourcesOf, type HistoryMessage, type RetrievalMode, type Source } from '../answers/types.ts';
import type { ConversationsRepository } from './conversations.repository.ts';

export interface ChatRequest {
  message: string;
  /** Namespaces to search; null or empty for all. */
  namespaces?: readonly string[] | null;
  conversationId?: string;
  /** A canonical BCP 47 tag; detected from the message when absent. */
  language?: string;
  retrieval?: RetrievalMode;
}

export type ChatEvent =
  /** `messageId`: the answer's id (feedback names it). */
  | { type: 'meta'; conversationId: string; messageId: string; sources: Source[] }
  | { type: 'chunk'; text: string }
  /** `error` says why, for the JSON answer of a request that did not stream. */
  | { type: 'error'; message: string; error: AppError };

export interface ChatAnswer {
  conversationId: string;
  messageId: string;
  answer: string;
  sources: Source[];
  language: string;
}

export interface PreparedChat {
  readonly conversationId: string;
  /** The answer's message id, known before it is written. */
  readonly messageId: string;
  readonly language: string;
  /** Runs the answer as events; can be read once. */
  events(signal?: AbortSignal): AsyncGenerator<ChatEvent, void, undefined>;
  /** Runs the answer and returns it whole; a failure is thrown. */
  collect(signal?: AbortSignal): Promise<ChatAnswer>;
}

/** Messages of the conversation read before a turn (their tokens are bounded again by the prompt). */
const HISTORY_MESSAGES = 20;

export class ChatService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly answers: Answers,
    private readonly logger: Logger,
    /** Where questions are recorded with how well retrieval answered them (knowledge gaps). */
    private readonly queryLog?: QueryLog,
  ) {}

  /** Who writes the answers: `claude` (a model) or `extractive` (quoted passages, the built-in answerer). */
  get answerer(): 'claude' | 'extractive' {
    return this.answers.answerer.kind;
  }

  async prepare(request: ChatRequest, caller: Principal, log: Logger = this.logger): Promise<PreparedChat> {
    // Namespaces outside the caller's scope are refused before anything is stored.
    const namespaces = resolveNamespaces(request.namespaces, caller.namespaces);
    let conversationLanguage: string | null = null;
    if (request.conversationId !== undefined) {
      // Unknown, malformed, or another key's: all the same 404, so ids leak nothing.
      const conversation = isUuid(request.conversationId) ? await this.conversations.find(request.conversationId) : undefined;
      if (!conversation || (!caller.admin && conversation.apiKeyId !== caller.keyId)) {
        throw new AppError('NOT_FOUND', `No conversation ${request.conversationId}`);
      }
      conversationLanguage = conversation.language;
    }
    const language = await this.answers.languages.resolve(request.message, request.language, conversationLanguage);
    const messageId = randomUUID();
    const { conversationId, turn } = await this.conversations.beginTurn({
      answerId: messageId,
      ...(request.conversationId !== undefined ? { conversationId: request.conversationId } : {}),
      apiKeyId: caller.keyId,
      language,
      namespaces,
      message: request.message,
    });
    const history: HistoryMessage[] =
      request.conversationId === undefined
        ? []
        : (await this.conversations.history(conversationId, turn, HISTORY_MESSAGES)).map((m) => ({ role: m.role, content: m.content }));
    let started = false;
    const run = (signal?: AbortSignal) => {
      if (started) throw new Error('a prepared chat runs once');
      started = true;
      return this.run(
        { ...request, namespaces },
        { conversationId, messageId, turn, language, history, keyId: caller.keyId, askedIn: request.namespaces && request.namespaces.length > 0 ? request.namespaces : null },
        signal,
        log.child({ conversationId }),
      );
    };
    return {
      conversationId,
      messageId,
      language,
      events: run,
      async collect(signal) {
        let answer = '';
        let sources: Source[] = [];
        for await (const event of run(signal)) {
          if (event.type === 'meta') sources = event.sources;
          else if (event.type === 'chunk') answer += event.text;
          else throw event.error;
        }
        signal?.throwIfAborted();
        return { conversationId, messageId, answer, sources, language };
      },
    };
  }

  private async *run(
    request: ChatRequest,
    turn: { conversationId: string; messageId: string; turn: number; language: string; history: HistoryMessage[]; keyId: string | null; askedIn: readonly string[] | null },
    signal: AbortSignal | undefined,
    log: Logger,
  ): AsyncGenerator<ChatEvent, void, undefined> {
    const { conversationId, messageId } = turn;
    const began = performance.now();
    const answerer = this.answers.answerer.kind;
    let sources: Source[] = [];
    let metaSent = false;
    let answer = '';
    let stored = false;
    const store = async (interrupted: boolean) => {
      if (stored) return;
      stored = true;
      try {
        await this.conversations.storeAnswer({ id: messageId, conversationId, content: answer, sources, interrupted });
      } catch (error) {
        log.error({ err: error, interrupted }, 'could not store the answer');
        if (!interrupted) throw error;
      }
    };
    try {
      const retrieval = await inSpan('retrieval', { 'kb.retrieval': request.retrieval ?? 'standard' }, () =>
        this.answers.retriever.retrieve(
          { message: request.message, history: turn.history, namespaces: request.namespaces ?? null, mode: request.retrieval ?? 'standard' },
          signal,
        ),
      );
      // Recorded with what the answer found (nothing: it leads the knowledge gaps) and, for a
      // follow-up, the question it stands for.
      const record = (answered: boolean | null) =>
        this.queryLog?.record({
          kind: 'chat',
          query: request.message,
          namespaces: turn.askedIn,
          bestScore: retrieval.bestSimilarity ?? null,
          apiKeyId: turn.keyId,
          answered,
          standalone: normalizeQuery(retrieval.query) === normalizeQuery(request.message) ? null : retrieval.query,
        });
      signal?.throwIfAborted();
      let stream;
      try {
        stream = await this.answers.answerer.answer(
          {
            question: request.message,
            query: retrieval.query,
            language: turn.language,
            history: turn.history,
            passages: retrieval.passages,
            ...(retrieval.wordFrequencies ? { wordFrequencies: retrieval.wordFrequencies } : {}),
          },
          signal,
        );
      } catch (error) {
        record(null);
        throw error;
      }
      record(stream.answered ?? stream.passages.length > 0);
      sources = sourcesOf(stream.passages);
      metaSent = true;
      metrics.chatMeta(answerer, secondsSince(began));
      yield { type: 'meta', conversationId, messageId, sources };
      for await (const text of stream.fragments) {
        if (answer === '') metrics.chatFirstChunk(answerer, secondsSince(began));
        answer += text;
        yield { type: 'chunk', text };
      }
      signal?.throwIfAborted();
      await store(false);
      metrics.chatAnswer(answerer, request.retrieval ?? 'standard');
    } catch (error) {
      if (signal?.aborted) {
        metrics.chatAborted(answerer);
        log.info({ chars: answer.length }, 'client went away; the answer so far is stored as interrupted');
        await store(true);
        return;
      }
      const failure = isAppError(error) ? error : unavailableError(error) ?? new AppError('INTERNAL_SERVER_ERROR', 'The answer could not be completed; try again', { cause: error });
      if (failure.code === 'INTERNAL_SERVER_ERROR') log.error({ err: error }, 'chat answer failed');
      else log.warn({ err: error, code: failure.code }, 'chat answer failed');
      await store(true);
      if (!metaSent) yield { type: 'meta', conversationId, messageId, sources: [] };
      yield { type: 'error', message: failure.message, error: failure };
    } finally {
      // The reader stopped early (return() on the generator): keep what was written.
      if (!stored) await store(true);
    }
  }
}
