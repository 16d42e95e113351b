import type { ColumnType, Generated, JSONColumnType } from 'kysely';

/** A document an answer drew on, as the chat stream's `meta` event names it. */
export interface StoredSource {
  title: string;
  documentId: string;
  slug: string;
  namespace: string;
  url?: string;
  /** The section's anchor on the page at `url`. */
  anchor?: string;
}

export interface ConversationsTable {
  id: Generated<string>;
  api_key_id: string | null;
  language: string | null;
  /** Namespaces the conversation searched. */
  sources: JSONColumnType<string[], string, string>;
  /** Turns handed out so far; the next request takes next_turn + 1. */
  next_turn: Generated<number>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface MessagesTable {
  id: Generated<string>;
  conversation_id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: JSONColumnType<StoredSource[], string, string>;
  /** The request's turn: a question and its answer share it. */
  turn: number;
  /** An answer cut short (client gone, model failure): what was written before that. */
  interrupted: Generated<boolean>;
  created_at: ColumnType<Date, Date | undefined, never>;
}
