import type { Database, DB, StoredSource } from '@kb/db';
import { randomUUID } from 'node:crypto';
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

  constructor(private readonly database: Pick<Database, 'db' | 'reads'>) {
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
   * interrupted, never a question without one nor a cut answer passing for complete. One
   * statement (its writes are one implicit transaction): it is on the way to a chat's first event.
   */
  async beginTurn(input: {
    conversationId?: string;
    answerId: string;
    apiKeyId: string | null;
    language: string;
    namespaces: readonly string[];
    message: string;
  }): Promise<{ conversationId: string; turn: number }> {
    const turn =
      input.conversationId === undefined
        ? sql`insert into conversations (api_key_id, language, sources, next_turn)
              values (${input.apiKeyId}, ${input.language}, ${json([...input.namespaces].sort())}::jsonb, 1)
              returning id, next_turn as turn`
        : sql`update conversations
              set next_turn = next_turn + 1,
                  language = ${input.language},
                  updated_at = now(),
                  sources = (
                    select coalesce(jsonb_agg(distinct n order by n), '[]'::jsonb)
                    from jsonb_array_elements_text(sources || ${json(input.namespaces)}::jsonb) as n
                  )
              where id = ${input.conversationId}
              returning id, next_turn as turn`;
    const { rows } = await sql<{ id: string; turn: number }>`
      with turn as (${turn}),
      stored as (
        insert into messages (id, conversation_id, role, content, sources, turn, interrupted)
        select m.id, turn.id, m.role, m.content, '[]'::jsonb, turn.turn, m.interrupted
        from turn cross join (values
          (${randomUUID()}::uuid, 'user', ${input.message}::text, false, 0),
          (${input.answerId}::uuid, 'assistant', '', true, 1)
        ) as m(id, role, content, interrupted, position)
        order by m.position
      )
      select id, turn from turn`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error(`conversation ${input.conversationId} vanished`);
    return { conversationId: row.id, turn: Number(row.turn) };
  }

  /** The answer of a turn begun with `answerId`: its text, its sources, and whether it was cut short (one statement). */
  async storeAnswer(input: { id: string; conversationId: string; content: string; sources: readonly StoredSource[]; interrupted: boolean }): Promise<void> {
    await sql`
      with answer as (
        update messages
        set content = ${input.content}, sources = ${json(input.sources)}::jsonb, interrupted = ${input.interrupted}
        where id = ${input.id} and conversation_id = ${input.conversationId}
        returning conversation_id
      )
      update conversations set updated_at = now()
      where id = ${input.conversationId}`.execute(this.db);
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
