import type { StoredSource } from '@kb/db';
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { FeedbackRepository } from '../feedback/feedback.repository.ts';
import { toFeedbackView, type FeedbackView } from '../feedback/feedback.service.ts';
import { isUuid } from '../ids.ts';
import { pagePosition } from '../lists/keyset.ts';
import type { ConversationFilter, ConversationsRepository, MessageRecord } from './conversations.repository.ts';

/** Most conversations one page lists; a larger `limit` is clamped to it (and reported as `take`). */
export const MAX_CONVERSATIONS_PAGE = 200;
export const DEFAULT_CONVERSATIONS_PAGE = 50;

export interface MessageView {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: StoredSource[];
  /** Present (true) on an answer cut short by a disconnect or a failure. */
  interrupted?: true;
  createdAt: string;
  /** A conversation read by its own key: the vote on this answer (null: none yet). */
  feedback?: Omit<FeedbackView, 'messageId'> | null;
}

export interface ConversationView {
  id: string;
  language: string | null;
  /** Namespaces the conversation was asked in. */
  sources: string[];
  createdAt: string;
  updatedAt: string;
  messages: MessageView[];
}

function toMessageView(m: MessageRecord): MessageView {
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    sources: m.sources,
    ...(m.interrupted ? { interrupted: true as const } : {}),
    createdAt: m.createdAt.toISOString(),
  };
}

/** Stored conversations: one by id for the key that started it, and lists for administrators. */
export class ConversationsService {
  constructor(
    private readonly repository: ConversationsRepository,
    private readonly feedback: FeedbackRepository,
  ) {}

  /**
   * A conversation with its messages and the votes on its answers, for the key (or session) that
   * started it; administrators read any. Unknown and another key's are the same 404.
   */
  async get(id: string, caller: Principal): Promise<ConversationView> {
    const conversation = isUuid(id) ? await this.repository.find(id) : undefined;
    if (!conversation || (!caller.admin && conversation.apiKeyId !== caller.keyId)) throw new AppError('NOT_FOUND', `No conversation ${id}`);
    const [messages, votes] = await Promise.all([this.repository.messages(id), this.feedback.forConversation(id)]);
    return {
      id: conversation.id,
      language: conversation.language,
      sources: conversation.sources,
      createdAt: conversation.createdAt.toISOString(),
      updatedAt: conversation.updatedAt.toISOString(),
      messages: messages.map((message) => {
        const view = toMessageView(message);
        if (message.role !== 'assistant') return view;
        const vote = votes.get(message.id);
        if (!vote) return { ...view, feedback: null };
        const { messageId: _id, ...feedback } = toFeedbackView(vote);
        return { ...view, feedback };
      }),
    };
  }

  async list(
    filter: ConversationFilter & { limit?: number; offset?: number; cursor?: string },
  ): Promise<{ conversations: ConversationView[]; total: number; take: number; skip: number; nextCursor: string | null }> {
    const take = Math.min(filter.limit ?? DEFAULT_CONVERSATIONS_PAGE, MAX_CONVERSATIONS_PAGE);
    const { offset: skip, after } = pagePosition(filter);
    const { total, conversations, nextCursor } = await this.repository.list(
      { ...(filter.namespace !== undefined ? { namespace: filter.namespace } : {}), ...(filter.language !== undefined ? { language: filter.language } : {}) },
      { limit: take, offset: skip, ...(after ? { after } : {}) },
    );
    return {
      conversations: conversations.map((c) => ({
        id: c.id,
        language: c.language,
        sources: c.sources,
        createdAt: c.createdAt.toISOString(),
        updatedAt: c.updatedAt.toISOString(),
        messages: c.messages.map(toMessageView),
      })),
      total,
      take,
      skip,
      nextCursor,
    };
  }
}
