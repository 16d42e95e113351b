/**
 * The visitor's conversations, kept in the page's localStorage under one entry per assistant key:
 * what the history list shows and what opens at once, while the server's copy (read by id) is the
 * truth. Capped by count and by size; the least recently used conversations go first.
 */

export interface StoredSource {
  title: string;
  url?: string;
  anchor?: string;
  /** The heading of the section the answer drew on. */
  section?: string;
}

export type Vote = { rating: 'up' | 'down'; reasons?: string[]; note?: string };

export interface StoredMessage {
  role: 'user' | 'assistant';
  content: string;
  /** The answer's id (for feedback). */
  id?: string;
  sources?: StoredSource[];
  vote?: Vote;
  interrupted?: boolean;
}

export interface StoredConversation {
  id: string;
  /** The first question, shortened. */
  title: string;
  /** Milliseconds since the epoch of the last question. */
  updatedAt: number;
  messages: StoredMessage[];
}

export const MAX_CONVERSATIONS = 20;
/** Bytes of the stored JSON (UTF-8). */
export const MAX_HISTORY_BYTES = 200_000;

/** The part of Storage the history uses (localStorage, or a stand-in in tests). */
export type KeyValueStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const encoder = new TextEncoder();
const byteSize = (value: unknown): number => encoder.encode(JSON.stringify(value)).length;

/**
 * The list within the caps: at most MAX_CONVERSATIONS, newest first, at most MAX_HISTORY_BYTES
 * of JSON. Oldest conversations are dropped first; when the newest alone is too large, its oldest
 * messages go, and at worst it is kept without messages (it is read again from the server).
 */
export function capHistory(conversations: readonly StoredConversation[], maxBytes = MAX_HISTORY_BYTES, maxCount = MAX_CONVERSATIONS): StoredConversation[] {
  const kept = [...conversations].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, maxCount);
  while (kept.length > 1 && byteSize(kept) > maxBytes) kept.pop();
  if (kept.length === 1 && byteSize(kept) > maxBytes) {
    const only = { ...kept[0]!, messages: [...kept[0]!.messages] };
    while (only.messages.length > 0 && byteSize([only]) > maxBytes) only.messages.shift();
    if (byteSize([only]) > maxBytes) only.title = only.title.slice(0, 100);
    kept[0] = only;
  }
  return kept;
}

function isConversation(value: unknown): value is StoredConversation {
  const item = value as StoredConversation;
  return typeof item === 'object' && item !== null && typeof item.id === 'string' && typeof item.title === 'string' && typeof item.updatedAt === 'number' && Array.isArray(item.messages);
}

export class History {
  constructor(
    private readonly store: KeyValueStore | undefined,
    private readonly name: string,
  ) {}

  /** The stored conversations, newest first; nothing when storage is off, blocked or holds something else. */
  list(): StoredConversation[] {
    try {
      const parsed: unknown = JSON.parse(this.store?.getItem(this.name) ?? '[]');
      return Array.isArray(parsed) ? parsed.filter(isConversation).sort((a, b) => b.updatedAt - a.updatedAt) : [];
    } catch {
      return [];
    }
  }

  get(id: string): StoredConversation | undefined {
    return this.list().find((conversation) => conversation.id === id);
  }

  /** Stores a conversation (replacing the one with its id), then trims the list to the caps. */
  save(conversation: StoredConversation): void {
    this.write(capHistory([conversation, ...this.list().filter((item) => item.id !== conversation.id)]));
  }

  remove(id: string): void {
    this.write(this.list().filter((item) => item.id !== id));
  }

  clear(): void {
    try {
      this.store?.removeItem(this.name);
    } catch {
      // Storage blocked: there is nothing to clear.
    }
  }

  private write(conversations: StoredConversation[]): void {
    try {
      if (conversations.length === 0) this.store?.removeItem(this.name);
      else this.store?.setItem(this.name, JSON.stringify(conversations));
    } catch {
      // Full or blocked storage (a private window): the conversation goes on, unremembered.
    }
  }
}

/** A conversation's title: its first question on one line, at most 80 characters. */
export function titleOf(question: string): string {
  const line = question.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
