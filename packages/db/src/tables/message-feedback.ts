import type { ColumnType, JSONColumnType } from 'kysely';

/** The last vote on an answer (an assistant message), by the key whose conversation it is. */
export interface MessageFeedbackTable {
  message_id: string;
  conversation_id: string;
  api_key_id: string | null;
  rating: 'up' | 'down';
  reasons: JSONColumnType<string[], string, string>;
  note: string | null;
  /** The question answered, as the query log groups repeats. */
  question_normalized: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
