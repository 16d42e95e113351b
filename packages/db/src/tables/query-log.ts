import type { Generated, JSONColumnType } from 'kysely';

/** A search or chat question and how well retrieval answered it (see the 20261125T0100 migration). */
export interface QueryLogTable {
  id: Generated<string>;
  kind: 'search' | 'chat';
  query: string;
  /** The query lower-cased with its white space collapsed: repeats share it. */
  normalized: string;
  /** Namespaces searched (empty: all). */
  namespaces: JSONColumnType<string[], string, string>;
  /** Best cosine similarity between the query and a chunk, 0..1; null when nothing was found. */
  best_score: number | null;
  api_key_id: string | null;
  created_at: Date;
  /** Chat: whether the answer found anything to draw on; null for searches and failed answers. */
  answered: boolean | null;
  /** A follow-up's standalone question (completed from the conversation); null when it is `query`. */
  standalone: string | null;
}
