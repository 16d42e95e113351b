/**
 * Splits the user-worded question set (eval-sets/user-qa/questions.json) into a development and
 * a held-out half, and makes its three-question conversations; deterministic (the same file and
 * seed give the same split):
 *
 *   pnpm --filter @kb/cli exec tsx bench/split-user-qa.ts --seed=35
 *
 * Within each corpus, answerable and not-covered questions apart, the questions (by id) are
 * shuffled by a generator seeded with the seed; every other one goes to the held-out half. Then,
 * within each half and corpus, the answerable questions are shuffled again and cut into threes
 * whose answering pages differ: each three is a conversation, its third question the one measured.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface Question {
  id: string;
  split?: 'dev' | 'heldout';
  corpus: string;
  question: string;
  pages: string[];
  keys: string[][];
}
interface Conversation {
  id: string;
  split: 'dev' | 'heldout';
  corpus: string;
  /** Question ids, in the order asked. */
  turns: [string, string, string];
}

const { values } = parseArgs({ options: { seed: { type: 'string', default: '35' } } });
const seed = Number.parseInt(values.seed, 10);
const file = join(import.meta.dirname, '../eval-sets/user-qa/questions.json');
const conversationsFile = join(import.meta.dirname, '../eval-sets/user-qa/conversations.json');

/** mulberry32: a small seeded generator. */
function random(start: number): () => number {
  let a = start >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function shuffle<T>(items: readonly T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const questions = JSON.parse(await readFile(file, 'utf8')) as Question[];
const next = random(seed);
const byId = (a: Question, b: Question) => (a.id < b.id ? -1 : 1);
for (const corpus of [...new Set(questions.map((q) => q.corpus))].sort()) {
  for (const covered of [true, false]) {
    const group = questions.filter((q) => q.corpus === corpus && q.pages.length > 0 === covered).sort(byId);
    shuffle(group, next).forEach((q, i) => (q.split = i % 2 === 0 ? 'dev' : 'heldout'));
  }
}
const conversations: Conversation[] = [];
for (const split of ['dev', 'heldout'] as const) {
  for (const corpus of [...new Set(questions.map((q) => q.corpus))].sort()) {
    const pool = shuffle(questions.filter((q) => q.split === split && q.corpus === corpus && q.pages.length > 0).sort(byId), next);
    while (pool.length >= 3) {
      const third = pool.shift()!;
      const others: Question[] = [];
      for (let i = 0; i < pool.length && others.length < 2; i++) {
        const q = pool[i]!;
        if (q.pages.some((p) => third.pages.includes(p) || others.some((o) => o.pages.includes(p)))) continue;
        others.push(q);
        pool.splice(i--, 1);
      }
      if (others.length < 2) break;
      conversations.push({ id: `${split}-${corpus}-${conversations.filter((c) => c.split === split && c.corpus === corpus).length + 1}`, split, corpus, turns: [others[0]!.id, others[1]!.id, third.id] });
    }
  }
}
const lines = (items: readonly object[]) => `[\n${items.map((q) => `  ${JSON.stringify(q)}`).join(',\n')}\n]\n`;
await writeFile(file, lines(questions.map(({ id, split, corpus, question, pages, keys }) => ({ id, split, corpus, question, pages, keys }))));
await writeFile(conversationsFile, lines(conversations));
console.log(`${questions.length} questions (dev ${questions.filter((q) => q.split === 'dev').length}, held out ${questions.filter((q) => q.split === 'heldout').length}), ${conversations.length} conversations`);
