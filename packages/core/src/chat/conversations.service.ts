import type { StoredSource } from '@kb/db';
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

/** Stored conversations for administrators: filtered, paged, newest first. */
export class ConversationsService {
  constructor(private readonly repository: ConversationsRepository) {}

  async list(
    filter: ConversationFilter & { limit?: number; offset?: number },
  ): Promise<{ conversations: ConversationView[]; total: number; take: number; skip: number }> {
    const take = Math.min(filter.limit ?? DEFAULT_CONVERSATIONS_PAGE, MAX_CONVERSATIONS_PAGE);
    const skip = filter.offset ?? 0;
    const { total, conversations } = await this.repository.list(
      { ...(filter.namespace !== undefined ? { namespace: filter.namespace } : {}), ...(filter.language !== undefined ? { language: filter.language } : {}) },
      { limit: take, offset: skip },
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
    };
  }
}
