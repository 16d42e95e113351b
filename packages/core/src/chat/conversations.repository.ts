import type { Database, DB, StoredSource } from '@kb/db';
import { sql, type Kysely } from 'kysely';
import { afterPosition, cursorPage, cursorTime, type KeysetPosition } from '../lists/keyset.ts';

export interface ConversationRecord {
  id: string;
  apiKeyId: string | null;
  language: string | null;
  /** Namespaces the conversation was asked in. */
  sources: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface MessageRecord {
  id: string;
  conversationId: string;
  role: 'user' | 'assistant';
  content: string;
  sources: StoredSource[];
  interrupted: boolean;
  turn: number;
  createdAt: Date;
}

export interface ConversationFilter {
  /** Conversations asked in this namespace. */
  namespace?: string;
  /** Conversations in this language (a primary tag such as "fr" also matches "fr-CA"). */
  language?: string;
}

const json = (value: unknown) => JSON.stringify(value);

function toConversation(row: {
  id: string;
  api_key_id: string | null;
  language: string | null;
  sources: string[] | string;
  created_at: Date;
  updated_at: Date;
}): ConversationRecord {
  return {
    id: row.id,
    apiKeyId: row.api_key_id,
    language: row.language,
    sources: typeof row.sources === 'string' ? (JSON.parse(row.sources) as string[]) : row.sources,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export class ConversationsRepository {
  private readonly db: Kysely<DB>;

  constructor(private readonly database: Pick<Database, 'db' | 'reads' | 'transaction'>) {
    this.db = database.db;
  }

  async find(id: string): Promise<ConversationRecord | undefined> {
    const row = await this.db
      .selectFrom('conversations')
      .select(['id', 'api_key_id', 'language', 'sources', 'created_at', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toConversation(row) : undefined;
  }

  /**
   * Starts a turn: creates the conversation when `conversationId` is absent, takes the next turn
   * number under the conversation row's lock (so concurrent requests get distinct, ordered
   * turns), records the turn's language and namespaces, and stores the user's message with its
   * answer `answerId` as an empty answer marked interrupted. The turn is whole from the start: a
   * process that dies before the answer ends (killed, the database gone) leaves an answer marked
   * interrupted, never a question without one nor a cut answer passing for complete.
   */
  async beginTurn(input: {
    conversationId?: string;
    answerId: string;
    apiKeyId: string | null;
    language: string;
    namespaces: readonly string[];
    message: string;
  }): Promise<{ conversationId: string; turn: number }> {
    return this.database.transaction(async (trx) => {
      let conversationId = input.conversationId;
      let turn: number;
      if (conversationId === undefined) {
        const created = await trx
          .insertInto('conversations')
          .values({ api_key_id: input.apiKeyId, language: input.language, sources: json([...input.namespaces].sort()), next_turn: 1 })
          .returning(['id'])
          .executeTakeFirstOrThrow();
        conversationId = created.id;
        turn = 1;
      } else {
        const updated = await sql<{ next_turn: number }>`
          update conversations
          set next_turn = next_turn + 1,
              language = ${input.language},
              updated_at = now(),
              sources = (
                select coalesce(jsonb_agg(distinct n order by n), '[]'::jsonb)
                from jsonb_array_elements_text(sources || ${json(input.namespaces)}::jsonb) as n
              )
          where id = ${conversationId}
          returning next_turn`.execute(trx);
        const row = updated.rows[0];
        if (!row) throw new Error(`conversation ${conversationId} vanished`);
        turn = Number(row.next_turn);
      }
      await trx
        .insertInto('messages')
        .values([
          { conversation_id: conversationId, role: 'user', content: input.message, sources: json([]), turn },
          { id: input.answerId, conversation_id: conversationId, role: 'assistant', content: '', sources: json([]), turn, interrupted: true },
        ])
        .execute();
      return { conversationId, turn };
    });
  }

  /** The answer of a turn begun with `answerId`: its text, its sources, and whether it was cut short. */
  async storeAnswer(input: { id: string; conversationId: string; content: string; sources: readonly StoredSource[]; interrupted: boolean }): Promise<void> {
    await this.database.transaction(async (trx) => {
      await trx
        .updateTable('messages')
        .set({ content: input.content, sources: json(input.sources), interrupted: input.interrupted })
        .where('id', '=', input.id)
        .where('conversation_id', '=', input.conversationId)
        .execute();
      await trx.updateTable('conversations').set({ updated_at: new Date() }).where('id', '=', input.conversationId).execute();
    });
  }

  /** Every message of a conversation, in order (each turn's question before its answer). */
  async messages(conversationId: string): Promise<MessageRecord[]> {
    const rows = await this.messagesQuery()
      .where('conversation_id', '=', conversationId)
      .orderBy('turn', 'asc')
      .orderBy('role', 'desc')
      .orderBy('created_at', 'asc')
      .execute();
    return rows.map(toMessage);
  }

  /** The last `limit` messages before a turn, oldest first (each turn's question before its answer). */
  async history(conversationId: string, beforeTurn: number, limit: number): Promise<MessageRecord[]> {
    const rows = await this.messagesQuery()
      .where('conversation_id', '=', conversationId)
      .where('turn', '<', beforeTurn)
      .where((eb) => eb.or([eb('role', '=', 'user'), eb('content', '!=', '')]))
      .orderBy('turn', 'desc')
      .orderBy('role', 'asc')
      .limit(limit)
      .execute();
    return rows.map(toMessage).reverse();
  }

  /** A page of conversations, newest first, with their messages in order, and how many match. */
  async list(
    filter: ConversationFilter,
    page: { limit: number; offset: number; after?: KeysetPosition },
  ): Promise<{ total: number; conversations: Array<ConversationRecord & { messages: MessageRecord[] }>; nextCursor: string | null }> {
    // A list tolerates a replica's lag (docs/deployment.md).
    const reads = this.database.reads.db;
    let query = reads.selectFrom('conversations');
    if (filter.namespace !== undefined) query = query.where(sql<boolean>`sources @> ${json([filter.namespace])}::jsonb`);
    if (filter.language !== undefined) {
      const language = filter.language;
      query = query.where((eb) => eb.or([eb('language', '=', language), eb(sql`lower(language)`, 'like', `${language.toLowerCase().replace(/[\\%_]/g, '\\$&')}-%`)]));
    }
    let rowsQuery = query.select(['id', 'api_key_id', 'language', 'sources', 'created_at', 'updated_at']).select(cursorTime('created_at').as('cursor_at'));
    if (page.after) rowsQuery = rowsQuery.where(afterPosition('created_at', 'id', page.after, 'desc'));
    const [count, read] = await Promise.all([
      query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      rowsQuery
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit + 1)
        .offset(page.offset)
        .execute(),
    ]);
    const { rows, nextCursor } = cursorPage(read, page.limit, (row) => row.id);
    const conversations = rows.map(({ cursor_at: _at, ...row }) => ({ ...toConversation(row), messages: [] as MessageRecord[] }));
    if (conversations.length > 0) {
      const messages = await this.messagesQuery(reads)
        .where('conversation_id', 'in', conversations.map((c) => c.id))
        .orderBy('turn', 'asc')
        .orderBy('role', 'desc')
        .orderBy('created_at', 'asc')
        .execute();
      const byId = new Map(conversations.map((c) => [c.id, c]));
      for (const row of messages) byId.get(row.conversation_id)?.messages.push(toMessage(row));
    }
    return { total: Number(count.n), conversations, nextCursor };
  }

  private messagesQuery(executor: Kysely<DB> = this.db) {
    return executor
      .selectFrom('messages')
      .select(['id', 'conversation_id', 'role', 'content', 'sources', 'interrupted', 'turn', 'created_at']);
  }
}

function toMessage(row: {
  id: string;
  conversation_id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: StoredSource[] | string;
  interrupted: boolean;
  turn: number;
  created_at: Date;
}): MessageRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    role: row.role,
    content: row.content,
    sources: typeof row.sources === 'string' ? (JSON.parse(row.sources) as StoredSource[]) : row.sources,
    interrupted: row.interrupted,
    turn: Number(row.turn),
    createdAt: new Date(row.created_at),
  };
}
