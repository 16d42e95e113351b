import { describe, expect, it } from 'vitest';
import { capHistory, History, MAX_CONVERSATIONS, MAX_HISTORY_BYTES, titleOf, type KeyValueStore, type StoredConversation } from '../src/history.ts';

function memoryStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (name) => data.get(name) ?? null,
    setItem: (name, value) => void data.set(name, value),
    removeItem: (name) => void data.delete(name),
  };
}

function conversation(n: number, answerChars = 100): StoredConversation {
  return {
    id: `c${n}`,
    title: `Question ${n}`,
    updatedAt: 1_000 + n,
    messages: [
      { role: 'user', content: `Question ${n}` },
      { role: 'assistant', id: `m${n}`, content: 'é'.repeat(answerChars), sources: [{ title: 'Install', url: 'https://docs.example.com/install' }] },
    ],
  };
}

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe('capHistory', () => {
  it(`keeps the newest ${MAX_CONVERSATIONS} conversations`, () => {
    const all = Array.from({ length: 30 }, (_, n) => conversation(n));
    const kept = capHistory(all);
    expect(kept).toHaveLength(MAX_CONVERSATIONS);
    expect(kept.map((item) => item.id)).toEqual(Array.from({ length: 20 }, (_, n) => `c${29 - n}`));
  });

  it(`drops the oldest until the JSON is within ${MAX_HISTORY_BYTES} bytes (UTF-8)`, () => {
    // 15 conversations of about 30 KB each (two bytes a character): only six fit.
    const all = Array.from({ length: 15 }, (_, n) => conversation(n, 15_000));
    const kept = capHistory(all);
    expect(bytes(kept)).toBeLessThanOrEqual(MAX_HISTORY_BYTES);
    expect(kept.length).toBe(6);
    expect(kept[0]!.id).toBe('c14');
    expect(kept.at(-1)!.id).toBe('c9');
  });

  it('trims the oldest messages of a single conversation that is too large alone', () => {
    const big: StoredConversation = { ...conversation(1), messages: Array.from({ length: 40 }, (_, n) => ({ role: n % 2 ? 'assistant' : 'user', content: `${n} ${'x'.repeat(10_000)}` })) };
    const [kept] = capHistory([big]);
    expect(bytes([kept])).toBeLessThanOrEqual(MAX_HISTORY_BYTES);
    expect(kept!.messages.at(-1)!.content.startsWith('39 ')).toBe(true);
    expect(kept!.messages.length).toBeLessThan(40);
  });
});

describe('History', () => {
  it('stores, replaces, lists newest first, and clears', () => {
    const store = memoryStore();
    const history = new History(store, 'kb-assistant:test');
    history.save(conversation(1));
    history.save(conversation(2));
    history.save({ ...conversation(1), updatedAt: 5_000, title: 'again' });
    expect(history.list().map((item) => [item.id, item.title])).toEqual([
      ['c1', 'again'],
      ['c2', 'Question 2'],
    ]);
    history.remove('c2');
    expect(history.list().map((item) => item.id)).toEqual(['c1']);
    history.clear();
    expect(store.data.size).toBe(0);
  });

  it('holds no more than the caps however many conversations are saved', () => {
    const store = memoryStore();
    const history = new History(store, 'h');
    for (let n = 0; n < 60; n++) history.save(conversation(n, 9_000));
    expect(history.list().length).toBeLessThanOrEqual(MAX_CONVERSATIONS);
    expect(new TextEncoder().encode(store.data.get('h')!).length).toBeLessThanOrEqual(MAX_HISTORY_BYTES);
    expect(history.list()[0]!.id).toBe('c59');
  });

  it('survives storage that is blocked, full or holds something else', () => {
    const throwing: KeyValueStore = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => {
        throw new Error('SecurityError');
      },
    };
    const blocked = new History(throwing, 'h');
    expect(blocked.list()).toEqual([]);
    expect(() => blocked.save(conversation(1))).not.toThrow();
    expect(() => blocked.clear()).not.toThrow();
    const store = memoryStore();
    store.setItem('h', '{"not":"a list"');
    expect(new History(store, 'h').list()).toEqual([]);
    store.setItem('h', JSON.stringify([{ id: 1 }, conversation(3)]));
    expect(new History(store, 'h').list().map((item) => item.id)).toEqual(['c3']);
    expect(new History(undefined, 'h').list()).toEqual([]);
  });
});

describe('titleOf', () => {
  it('puts the question on one line of at most 80 characters', () => {
    expect(titleOf('  How do I\n install   it? ')).toBe('How do I install it?');
    expect(titleOf('x'.repeat(200))).toHaveLength(80);
  });
});
