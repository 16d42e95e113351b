export { ChatService } from './chat.service.ts';
export type { ChatAnswer, ChatEvent, ChatRequest, PreparedChat } from './chat.service.ts';
export { ConversationsRepository } from './conversations.repository.ts';
export type { ConversationFilter, ConversationRecord, MessageRecord } from './conversations.repository.ts';
export { ConversationsService, DEFAULT_CONVERSATIONS_PAGE, MAX_CONVERSATIONS_PAGE } from './conversations.service.ts';
export type { ConversationView, MessageView } from './conversations.service.ts';
