import { canonicalLanguageTag, type ChatRequest } from '@kb/core';
import type { ChatInput } from './schemas.ts';

/** The chat service's request from a validated body. */
export function chatRequest(input: ChatInput): ChatRequest {
  const language = input.language === undefined ? undefined : canonicalLanguageTag(input.language);
  return {
    message: input.message,
    namespaces: input.source === undefined ? null : Array.isArray(input.source) ? input.source : [input.source],
    ...(input.conversationId !== undefined ? { conversationId: input.conversationId } : {}),
    ...(language !== undefined ? { language } : {}),
    retrieval: input.retrieval ?? 'standard',
  };
}
