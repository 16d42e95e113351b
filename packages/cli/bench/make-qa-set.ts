/**
 * Writes the documentation question set (eval-sets/docs-qa/questions.json) from the pages
 * themselves, by the fixed rules described in eval-sets/docs-qa/README.md. Deterministic: the
 * same corpus and seed give the same file, byte for byte.
 *
 *   pnpm --filter @kb/cli exec tsx bench/make-qa-set.ts [--corpus=../shared/corpus] [--seed=28]
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: join(import.meta.dirname, '../../../../shared/corpus') },
    seed: { type: 'string', default: '28' },
    out: { type: 'string', default: join(import.meta.dirname, '../eval-sets/docs-qa/questions.json') },
  },
});

/** The corpora: folder (relative to the corpus root), how many questions, at most how many a page. */
const CORPORA = [
  { name: 'hugo', dir: 'markdown-docs/hugo-docs', take: 185, perPage: 3 },
  { name: 'fastapi', dir: 'markdown-multilingual/fastapi/en', take: 50, perPage: 5 },
] as const;

/** mulberry32: a small seeded generator, so the selection and the split are fixed by the seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
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

/** Rule 1: the prose paragraphs of a page, each joined into one line. */
export function paragraphs(markdown: string): string[] {
  const lines = markdown.replace(/\r\n/g, '\n').split('\n');
  let i = 0;
  if (lines[0]?.trim() === '---') {
    i = 1;
    while (i < lines.length && lines[i]!.trim() !== '---') i++;
    i++;
  }
  const out: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  let shortcode = 0;
  const flush = () => {
    if (current.length) out.push(current.join(' ').replace(/\s+/g, ' ').trim());
    current = [];
  };
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    const fenceMark = /^(`{3,}|~{3,})/.exec(trimmed)?.[1];
    if (fence) {
      if (fenceMark && trimmed.startsWith(fence)) fence = null;
      continue;
    }
    if (fenceMark) {
      flush();
      fence = fenceMark;
      continue;
    }
    // Paired shortcodes ({{< code >}} … {{< /code >}}) hold code or markup, not prose.
    if (/^\{\{[<%]\s*\/\s*[\w-]+/.test(trimmed)) {
      flush();
      shortcode = Math.max(0, shortcode - 1);
      continue;
    }
    if (/^\{\{[<%]\s*(code|code-toggle|highlight|datatable|eturl|new-in|include)\b/.test(trimmed) && !/\/\s*[>%]\}\}$/.test(trimmed)) {
      flush();
      if (/code|highlight/.test(trimmed)) shortcode++;
      continue;
    }
    if (shortcode > 0) continue;
    // Headings, quotes and callouts, tables, list items, HTML, link definitions, definition
    // lists, admonitions and indented blocks end a paragraph and are not prose.
    if (trimmed === '' || /^(\t| {4})/.test(line) || /^(#|>|\||[-*+] |\d+[.)] |\{\{|\{\*|<|\[[^\]]+\]:|:|!!!|\/\/\/)/.test(trimmed)) {
      flush();
      continue;
    }
    current.push(trimmed);
  }
  flush();
  return out;
}

/** Rule 2: sentences of a paragraph (split after . ! ? before a capital, a backtick or a link). */
export function sentences(paragraph: string): string[] {
  const parts = paragraph.split(/(?<=[.!?])\s+(?=[A-Z`[])/);
  const out: string[] = [];
  for (const part of parts) {
    const prev = out.at(-1);
    if (prev && /\b(e\.g|i\.e|etc|vs|cf)\.$/i.test(prev)) out[out.length - 1] = `${prev} ${part}`;
    else out.push(part);
  }
  return out;
}

/** Markdown to plain words, as a reader would type them. */
function plain(text: string): string {
  return text
    .replace(/\[([^\]]*)\](\([^)]*\)|\[[^\]]*\])?/g, '$1')
    .replace(/[`*_]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
/** The reader asks in the first person where the page speaks to them in the second. */
function firstPerson(text: string): string {
  return text
    .replace(/\byou are\b/gi, 'I am')
    .replace(/\byou were\b/gi, 'I was')
    .replace(/\byou're\b/gi, "I'm")
    .replace(/\byou've\b/gi, "I've")
    .replace(/\byourself\b/gi, 'myself')
    .replace(/\byours\b/gi, 'mine')
    .replace(/\byour\b/gi, 'my')
    .replace(/\byou\b/gi, 'I');
}
const STOP = new Set(
  'a an the to of in on for and or with by from as at is are be am it its this that these those there i my me mine myself do does don doesn can how what which when if not just only also want need use know look then will would should could get any some all more other each new happens keep make set change handle work build site project content page pages file files version case result common final order way thing things'.split(' '),
);
/** A question that leans on what came before it in the page cannot be asked alone. */
const LEANS = /\b(it|its|them|they|these|those|this|such|both|either|above|below|here|there)\b/i;
/** Words that name something: three letters or more, not a function word. */
const contentWords = (text: string) => text.toLowerCase().split(/[^a-z0-9.]+/).filter((w) => w.length >= 3 && !STOP.has(w));
const VAGUE = /^(do (so|this|that)|that end|this end|achieve this|accomplish this|make (this|it) work|use (it|this|them)|see|learn more)\b/i;

const BASE: Record<string, string> = {
  supports: 'support', provides: 'provide', ignores: 'ignore', includes: 'include', generates: 'generate', creates: 'create',
  renders: 'render', uses: 'use', requires: 'require', recognizes: 'recognize', caches: 'cache',
};

export interface Candidate {
  question: string;
  rule: string;
}

/** Rule 3: a sentence that matches one of the templates becomes a question; others are skipped. */
export function questionFor(sentence: string): Candidate | null {
  if (!sentence.endsWith('.') || /\{\{|<|\(g\)|\bfollowing\b|\bbelow\b|\babove\b/i.test(sentence)) return null;
  const words = plain(sentence).split(' ').length;
  if (words < 8 || words > 60) return null;
  let m = /^To ([^,]{8,}?), (.+)\.$/.exec(sentence);
  if (m && !VAGUE.test(plain(m[1]!))) return { question: `How do I ${firstPerson(plain(m[1]!))}?`, rule: 'to-clause' };
  m = /^(?:Use|Call|Set|Add|Run|Specify|Configure) ((?:(?! to ).)+) to ((?!the |an? |my |your )[a-z][^,]{8,})\.$/.exec(sentence);
  if (m && !VAGUE.test(plain(m[2]!))) return { question: `How do I ${firstPerson(plain(m[2]!))}?`, rule: 'use-to' };
  m = /^You can ([a-z][^,]{8,}?) (?:by|with|using) (.+)\.$/.exec(sentence);
  if (m && !VAGUE.test(plain(m[1]!))) return { question: `How can I ${firstPerson(plain(m[1]!))}?`, rule: 'you-can-by' };
  m = /^If (you [^,]{8,}), (.+)\.$/.exec(sentence);
  if (m && !/ you /.test(m[1]!.slice(4))) return { question: `What happens if ${firstPerson(plain(m[1]!))}?`, rule: 'if-you' };
  m = /^By default, ((?:the `[^`]+` (?:function|method|setting|option|flag|command))|Hugo|FastAPI) ([a-z]+s) (.+)\.$/.exec(sentence);
  if (m && /s$/.test(m[2]!)) {
    const verb = m[2]!.replace(/ies$/, 'y').replace(/(ss|sh|ch|x)es$/, '$1').replace(/([^s])s$/, '$1');
    return { question: `What does ${plain(m[1]!)} ${verb} by default?`, rule: 'by-default' };
  }
  m = /^(The `[^`]+` (?:function|method|parameter|setting|option|flag|command|field|key|variable)) (is|returns|determines|controls|defines|specifies) (.+)\.$/.exec(sentence);
  if (m) {
    const verbs: Record<string, string> = { is: 'is', returns: 'return', determines: 'determine', controls: 'control', defines: 'define', specifies: 'specify' };
    const subject = plain(m[1]!);
    return { question: m[2] === 'is' ? `What is ${subject.replace(/^The/, 'the')}?` : `What does ${subject.replace(/^The/, 'the')} ${verbs[m[2]!]}?`, rule: 'definition' };
  }
  m = /^When (you [^,]{8,}), (.+)\.$/.exec(sentence);
  if (m && !/ you /.test(m[1]!.slice(4))) return { question: `What happens when ${firstPerson(plain(m[1]!))}?`, rule: 'when-you' };
  m = /^(?:An?|The) ((?:`[^`]+`|[A-Za-z][\w-]*)(?: [\w-]+){0,3}) (is|are) (?:an?|the) ([^,]+?)(?:,.*)?\.$/.exec(sentence);
  if (m && !/^(following|same|first|last|other|next|previous|example|result|one|only|main|key|second|third|final)\b/i.test(m[1]!)) {
    return { question: `What ${m[2]} ${/^`|^[A-Z]/.test(m[1]!) ? '' : /^[aeiou]/i.test(m[1]!) && m[2] === 'is' ? 'an ' : m[2] === 'is' ? 'a ' : ''}${plain(m[1]!)}${m[2] === 'is' ? '' : ''}?`, rule: 'what-is' };
  }
  m = /^((?!(?:This|That|It|There|Here|Each|Every|Some|Both|These|Those|One|Other|Such|Most|Many|All|Any|The|An?|While|If|When|Imagine|In|For|On|Note|Now|So|But|And|Then|However|Also|Even|What|Which|Your|Our)\b)[A-Z][a-z]+(?: [a-z]+){0,2}) (is|are) (?:an?|the) ([^,]+?)(?:,.*)?\.$/.exec(sentence);
  if (m) return { question: `What ${m[2]} ${m[2] === 'is' ? m[1]! : m[1]!.toLowerCase()}?`, rule: 'what-is' };
  m = /^You can (?:also )?([a-z][^,]{8,}?)(?:,.*)?\.$/.exec(sentence);
  if (m && !VAGUE.test(plain(m[1]!))) return { question: `Can I ${firstPerson(plain(m[1]!))}?`, rule: 'you-can' };
  m = /^(Hugo|FastAPI) (supports|provides|ignores|includes|generates|creates|renders|uses|requires|recognizes|caches) ([a-z`][^,]{8,}?)(?:,.*)?\.$/.exec(sentence);
  if (m) return { question: `Does ${m[1]} ${BASE[m[2]!]} ${firstPerson(plain(m[3]!))}?`, rule: 'yes-no' };
  m = /^(Hugo|FastAPI) (does not|doesn't|can|cannot|can't|will|will not|won't) ([a-z][^,]{8,}?)(?:,.*)?\.$/.exec(sentence);
  if (m) {
    const aux = /^(does|doesn)/.test(m[2]!) ? 'Does' : /^ca/.test(m[2]!) ? 'Can' : 'Will';
    return { question: `${aux} ${m[1]} ${firstPerson(plain(m[3]!))}?`, rule: 'yes-no' };
  }
  return null;
}

interface Entry {
  id: string;
  corpus: string;
  split: 'dev' | 'heldout';
  question: string;
  slug: string;
  answer: string;
  rule: string;
}

const seed = Number(values.seed);
const normal = (text: string) => plain(text).toLowerCase();
const chosen: Omit<Entry, 'split' | 'id'>[] = [];
for (const corpus of CORPORA) {
  const root = join(values.corpus, corpus.dir);
  const files = (await readdir(root, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith('.md') && !(e.name === 'LICENSE.md'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  const pages = await Promise.all(files.map(async (file) => ({ slug: relative(root, file), text: await readFile(file, 'utf8') })));
  // Rule 4: a sentence found (as plain text) on more than one page has no single answering page.
  const seen = new Map<string, number>();
  const bySlug = new Map<string, Array<{ question: string; answer: string; rule: string }>>();
  for (const page of pages) {
    const list: Array<{ question: string; answer: string; rule: string }> = [];
    for (const paragraph of paragraphs(page.text)) {
      for (const sentence of sentences(paragraph)) {
        seen.set(normal(sentence), (seen.get(normal(sentence)) ?? 0) + 1);
        const q = questionFor(sentence);
        if (
          q &&
          contentWords(q.question).length >= (q.rule === 'what-is' || q.rule === 'definition' ? 2 : 3) &&
          !LEANS.test(q.question) &&
          !/[():]/.test(q.question) &&
          q.question.split(' ').length <= 22
        ) list.push({ question: q.question, answer: sentence, rule: q.rule });
      }
    }
    if (list.length) bySlug.set(page.slug, list);
  }
  const questionCount = new Map<string, number>();
  for (const list of bySlug.values()) for (const c of list) questionCount.set(c.question.toLowerCase(), (questionCount.get(c.question.toLowerCase()) ?? 0) + 1);
  // Rule 5: a fixed-seed draw, at most `perPage` questions a page, until `take` are chosen.
  const next = random(seed);
  const perPage = new Map<string, number>();
  const candidates = [...bySlug].flatMap(([slug, list]) =>
    list.filter((c) => seen.get(normal(c.answer)) === 1 && questionCount.get(c.question.toLowerCase()) === 1).map((c) => ({ slug, ...c })),
  );
  let taken = 0;
  for (const c of shuffle(candidates, next)) {
    if (taken >= corpus.take) break;
    if ((perPage.get(c.slug) ?? 0) >= corpus.perPage) continue;
    perPage.set(c.slug, (perPage.get(c.slug) ?? 0) + 1);
    chosen.push({ corpus: corpus.name, question: c.question, slug: c.slug, answer: c.answer, rule: c.rule });
    taken++;
  }
  console.error(`${corpus.name}: ${pages.length} pages, ${candidates.length} candidate questions, ${taken} chosen`);
}

// Rule 6: the split. Within each corpus, a second draw with the same seed puts every other
// question into the held-out half.
const entries: Entry[] = [];
for (const corpus of CORPORA) {
  const next = random(seed + 1);
  const mine = chosen.filter((c) => c.corpus === corpus.name).sort((a, b) => a.slug.localeCompare(b.slug) || a.answer.localeCompare(b.answer));
  shuffle(mine, next).forEach((c, i) => entries.push({ id: `${corpus.name}-${String(i + 1).padStart(3, '0')}`, split: i % 2 === 0 ? 'dev' : 'heldout', ...c }));
}
entries.sort((a, b) => a.id.localeCompare(b.id));
await writeFile(values.out, `[\n${entries.map((e) => `  ${JSON.stringify({ id: e.id, split: e.split, corpus: e.corpus, rule: e.rule, question: e.question, slug: e.slug, answer: e.answer })}`).join(',\n')}\n]\n`);
console.error(`${entries.length} questions (${entries.filter((e) => e.split === 'dev').length} development, ${entries.filter((e) => e.split === 'heldout').length} held out) -> ${values.out}`);
