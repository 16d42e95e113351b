import type { DB, StoredSource } from '@kb/db';
import { sql, type Kysely } from 'kysely';
import { afterPosition, cursorPage, cursorTime, type KeysetPosition } from '../lists/keyset.ts';

export type Rating = 'up' | 'down';

/** The question an answer (the messages row under the alias `answer`) answered: the user message of its turn. */
function questionOf(answer: 'm' | 'a') {
  return sql<string | null>`(select q.content from messages q
    where q.conversation_id = ${sql.ref(`${answer}.conversation_id`)} and q.turn = ${sql.ref(`${answer}.turn`)} and q.role = 'user'
    limit 1)`.as('question');
}

/** An answer as feedback needs it: its conversation's owner and the question it answered. */
export interface AnswerRecord {
  messageId: string;
  role: 'user' | 'assistant';
  conversationId: string;
  apiKeyId: string | null;
  question: string | null;
}

export interface FeedbackRecord {
  messageId: string;
  conversationId: string;
  apiKeyId: string | null;
  rating: Rating;
  reasons: string[];
  note: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A vote with what it was about, for the admin list. */
export interface FeedbackEntry extends FeedbackRecord {
  keyLabel: string | null;
  question: string;
  answer: string;
  sources: StoredSource[];
  namespaces: string[];
  interrupted: boolean;
}

export interface FeedbackFilter {
  rating?: Rating;
  reason?: string;
  namespace?: string;
  keyId?: string;
  since?: Date;
}

const parse = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

export class FeedbackRepository {
  /** `reads`: where the votes list reads (a replica's lag is tolerated there; default `db`). */
  constructor(
    private readonly db: Kysely<DB>,
    private readonly reads: Kysely<DB> = db,
  ) {}

  /** The message `id` with its conversation's key and, for an answer, its turn's question. */
  async findAnswer(id: string): Promise<AnswerRecord | undefined> {
    const row = await this.db
      .selectFrom('messages as m')
      .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
      .select([
        'm.id',
        'm.role',
        'm.conversation_id',
        'c.api_key_id',
        questionOf('m'),
      ])
      .where('m.id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    return { messageId: row.id, role: row.role, conversationId: row.conversation_id, apiKeyId: row.api_key_id, question: row.question };
  }

  /** Records a vote; a later one on the same answer replaces it. */
  async upsert(vote: { messageId: string; conversationId: string; apiKeyId: string | null; rating: Rating; reasons: readonly string[]; note: string | null; questionNormalized: string }): Promise<FeedbackRecord> {
    const row = await this.db
      .insertInto('message_feedback')
      .values({
        message_id: vote.messageId,
        conversation_id: vote.conversationId,
        api_key_id: vote.apiKeyId,
        rating: vote.rating,
        reasons: JSON.stringify(vote.reasons),
        note: vote.note,
        question_normalized: vote.questionNormalized,
      })
      .onConflict((oc) =>
        oc.column('message_id').doUpdateSet({
          api_key_id: vote.apiKeyId,
          rating: vote.rating,
          reasons: JSON.stringify(vote.reasons),
          note: vote.note,
          updated_at: sql<Date>`now()`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }

  /** The votes on a conversation's answers, by message id. */
  async forConversation(conversationId: string): Promise<Map<string, FeedbackRecord>> {
    const rows = await this.db.selectFrom('message_feedback').selectAll().where('conversation_id', '=', conversationId).execute();
    return new Map(rows.map((row) => [row.message_id, toRecord(row)]));
  }

  /** A page of votes, most recent first, with the question, the answer and the key. */
  async list(
    filter: FeedbackFilter,
    page: { limit: number; offset: number; after?: KeysetPosition },
  ): Promise<{ total: number; entries: FeedbackEntry[]; nextCursor: string | null }> {
    let query = this.reads
      .selectFrom('message_feedback as f')
      .innerJoin('messages as a', 'a.id', 'f.message_id')
      .innerJoin('conversations as c', 'c.id', 'f.conversation_id')
      .leftJoin('api_keys as k', 'k.id', 'f.api_key_id');
    if (filter.rating !== undefined) query = query.where('f.rating', '=', filter.rating);
    if (filter.reason !== undefined) query = query.where(sql<boolean>`f.reasons @> ${JSON.stringify([filter.reason])}::jsonb`);
    if (filter.namespace !== undefined) query = query.where(sql<boolean>`c.sources @> ${JSON.stringify([filter.namespace])}::jsonb`);
    if (filter.keyId !== undefined) query = query.where('f.api_key_id', '=', filter.keyId);
    if (filter.since !== undefined) query = query.where('f.updated_at', '>=', filter.since);
    const paged = page.after ? query.where(afterPosition('f.updated_at', 'f.message_id', page.after, 'desc')) : query;
    const [count, read] = await Promise.all([
      query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      paged
        .selectAll('f')
        .select(cursorTime('f.updated_at').as('cursor_at'))
        .select([
          'k.label as key_label',
          'a.content as answer',
          'a.sources as answer_sources',
          'a.interrupted',
          'c.sources as namespaces',
          questionOf('a'),
        ])
        .orderBy('f.updated_at', 'desc')
        .orderBy('f.message_id', 'desc')
        .limit(page.limit + 1)
        .offset(page.offset)
        .execute(),
    ]);
    const { rows, nextCursor } = cursorPage(read, page.limit, (row) => row.message_id);
    return {
      total: Number(count.n),
      nextCursor,
      entries: rows.map((row) => ({
        ...toRecord(row),
        keyLabel: row.key_label,
        question: row.question ?? '',
        answer: row.answer,
        sources: parse(row.answer_sources),
        namespaces: parse(row.namespaces),
        interrupted: row.interrupted,
      })),
    };
  }
}

function toRecord(row: {
  message_id: string;
  conversation_id: string;
  api_key_id: string | null;
  rating: Rating;
  reasons: string[] | string;
  note: string | null;
  created_at: Date;
  updated_at: Date;
}): FeedbackRecord {
  return {
    messageId: row.message_id,
    conversationId: row.conversation_id,
    apiKeyId: row.api_key_id,
    rating: row.rating,
    reasons: parse(row.reasons),
    note: row.note,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
