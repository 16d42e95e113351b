import type { ColumnType, Generated, JSONColumnType } from 'kysely';

export interface ConversationsTable {
  id: Generated<string>;
  api_key_id: string | null;
  language: string | null;
  /** Namespaces the conversation searched. */
  sources: JSONColumnType<string[], string, string>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface MessagesTable {
  id: Generated<string>;
  conversation_id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: JSONColumnType<Array<{ title: string; documentId: string }>, string, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
}
