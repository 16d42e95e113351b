/**
 * The built-in FAQ writer (no language model). From the passages retrieved for a topic it keeps
 * those on topic (relevance.ts), makes questions from what they say (questions.ts: each section's
 * heading, then its purpose sentences; the topic itself first when it is a question), and answers
 * each from its own section with the extractive answerer's sentence selection, without its chat
 * framing. A question whose section holds no sentence matching it is dropped, as is an answer
 * that repeats an earlier one: the FAQ has fewer pairs rather than filler. Deterministic.
 */
import { extractAnswer, segmentPassage } from '../answers/extractive.ts';
import { primaryLanguage, type LanguageDetector } from '../answers/language.ts';
import type { Passage } from '../answers/types.ts';
import { analyze, EXTENDED_STOP_WORDS } from '@kb/content';
import { headingQuestion, purposeQuestions } from './questions.ts';
import { isOnTopic, topicCoverage, topicTerms, topicWeights } from './relevance.ts';
import { MAX_FAQ_PAIRS, MIN_FAQ_PAIRS, type FaqPair, type FaqWriteInput, type FaqWriter } from './types.ts';

/** Changes when the writer's output changes, so entries it made before are made again. */
export const EXTRACTIVE_FAQ_VERSION = 1;

/** Purpose questions taken from one section. */
const PURPOSE_QUESTIONS_PER_SECTION = 2;
/** Longest question kept (a heading that is really a sentence makes a poor one). */
const MAX_QUESTION_CHARS = 160;
/** Two answers sharing this much of the smaller one's words are the same answer. */
const SAME_ANSWER_OVERLAP = 0.6;
const ANSWER_OPTIONS = { frame: false, maxUnits: 3, maxWords: 80, maxSections: 1 } as const;
const QUESTION_WORDS = /^(how|what|why|when|where|which|who|whom|whose|can|could|do|does|did|is|are|was|should|would|will|may|must)\b/i;

interface Candidate {
  question: string;
  passages: Passage[];
  /** Sections an answer may quote. */
  maxSections: number;
}

export interface ExtractiveFaqInput extends FaqWriteInput {
  /** Primary language subtag of each passage's text (questions are made in the language the text is written in). */
  passageLanguages?: readonly string[];
}

/** The pairs for a topic (see the module comment). Pure and deterministic. */
export function buildExtractiveFaq(input: ExtractiveFaqInput): FaqPair[] {
  const terms = topicTerms(input.topic);
  if (terms.length === 0) return [];
  const fallbackLanguage = primaryLanguage(input.language);
  const weights = topicWeights(terms, input.passages);
  const all = input.passages.map((passage, index) => ({
    passage,
    index,
    language: input.passageLanguages?.[index] ?? fallbackLanguage,
    onTopic: isOnTopic(passage, terms, weights),
    coverage: topicCoverage(passage, terms, weights),
    inHeading: topicCoverage({ headingPath: passage.headingPath, content: '' }, terms) > 0,
  }));
  // One language: the FAQ's, when the knowledge base has something on the topic in it.
  const inLanguage = all.filter((r) => r.language === fallbackLanguage);
  const ranked = inLanguage.some((r) => r.onTopic) ? inLanguage : all;
  const onTopic = ranked.filter((r) => r.onTopic).sort((a, b) => Number(b.inHeading) - Number(a.inHeading) || a.index - b.index);
  if (onTopic.length === 0) return [];

  const candidates: Candidate[] = [];
  const topic = input.topic.trim().replace(/\s+/g, ' ');
  if (/[?？]$/.test(topic) || QUESTION_WORDS.test(topic)) {
    candidates.push({ question: asQuestion(topic), passages: onTopic.slice(0, 3).map((r) => r.passage), maxSections: 2 });
  }
  const fromHeadings = (list: typeof ranked) => {
    for (const r of list) {
      const question = headingQuestion({ headingPath: r.passage.headingPath, content: r.passage.content, language: r.language });
      if (question) candidates.push({ question, passages: [r.passage], maxSections: 1 });
    }
  };
  const fromSentences = (list: typeof ranked) => {
    for (const r of list) {
      const sentences = segmentPassage(r.passage.content, 0).filter((u) => u.kind === 'sentence').map((u) => u.text);
      for (const { question } of purposeQuestions(sentences, r.language, PURPOSE_QUESTIONS_PER_SECTION)) {
        candidates.push({ question, passages: [r.passage], maxSections: 1 });
      }
    }
  };
  fromHeadings(onTopic);
  fromSentences(onTopic);
  const pairs = answerCandidates(candidates, input);
  if (pairs.length >= MIN_FAQ_PAIRS) return pairs;

  // Too few: sections that mention the topic without being about it, best covered first.
  const nearby = ranked.filter((r) => !r.onTopic && r.coverage > 0).sort((a, b) => b.coverage - a.coverage || a.index - b.index);
  fromHeadings(nearby);
  fromSentences(nearby);
  return answerCandidates(candidates, input);
}

/** Answers candidates in order, dropping unanswered questions and repeated questions or answers. */
function answerCandidates(candidates: readonly Candidate[], input: FaqWriteInput): FaqPair[] {
  const trimmed = new Map<Passage, Passage>();
  const shortened = (p: Passage) => {
    let q = trimmed.get(p);
    if (!q) trimmed.set(p, (q = withoutLongCode(p)));
    return q;
  };
  const pairs: FaqPair[] = [];
  const questions = new Set<string>();
  const answers: Array<Set<string>> = [];
  for (const candidate of candidates) {
    if (pairs.length >= MAX_FAQ_PAIRS) break;
    if (candidate.question.length > MAX_QUESTION_CHARS) continue;
    const key = questionKey(candidate.question);
    if (questions.has(key)) continue;
    const answer = extractAnswer(
      { question: candidate.question, query: input.topic, language: input.language, passages: candidate.passages.map(shortened) },
      { ...ANSWER_OPTIONS, maxSections: candidate.maxSections },
    );
    if (answer.quoted.length === 0) continue;
    const text = withoutDanglingIntro(answer.fragments.join('').trim());
    const words = new Set(analyze(text, { stopWords: EXTENDED_STOP_WORDS }));
    if (text === '' || answers.some((a) => overlap(a, words) >= SAME_ANSWER_OVERLAP)) continue;
    questions.add(key);
    answers.push(words);
    pairs.push({ question: candidate.question, answer: text, documentIds: [...new Set(answer.quoted.map((p) => p.documentId))] });
  }
  return pairs;
}

/** Code blocks longer than this are left out of FAQ answers (a listing answers no question on its own). */
const MAX_ANSWER_CODE_LINES = 12;
const FENCE = /^\s*(`{3,}|~{3,})/;
const SHORTCODE_OPEN = /^\s*\{\{[<%]\s*([\w-]+)[^}]*[>%]\}\}\s*$/;

/** A passage without its long code blocks (fenced, or in a shortcode such as Hugo's code-toggle). */
function withoutLongCode(passage: Passage): Passage {
  const lines = passage.content.split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line)?.[1];
    const shortcode = fence ? undefined : SHORTCODE_OPEN.exec(line)?.[1];
    const closing = fence
      ? new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`)
      : shortcode
        ? new RegExp(`^\\s*\\{\\{[<%]\\s*/${shortcode}\\s*[>%]\\}\\}\\s*$`)
        : undefined;
    if (!closing) {
      kept.push(line);
      continue;
    }
    let end = i + 1;
    while (end < lines.length && !closing.test(lines[end]!)) end++;
    // A shortcode whose end fell outside the passage: its opening line goes, the text stays prose.
    if (end >= lines.length && shortcode) continue;
    if (end - i - 1 <= MAX_ANSWER_CODE_LINES) kept.push(...lines.slice(i, end + 1));
    i = end;
  }
  return kept.length === lines.length ? passage : { ...passage, content: kept.join('\n') };
}

/** An answer without a last paragraph that introduces something it does not show ("For example:"). */
function withoutDanglingIntro(answer: string): string {
  const paragraphs = answer.split(/\n{2,}/);
  while (paragraphs.length > 0 && /:\s*$/.test(paragraphs[paragraphs.length - 1]!) && !/^\s*(`{3,}|~{3,}|\|)/.test(paragraphs[paragraphs.length - 1]!)) {
    paragraphs.pop();
  }
  return paragraphs.join('\n\n').trim();
}

function questionKey(question: string): string {
  return question.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return 1;
  let shared = 0;
  for (const w of small) if (large.has(w)) shared++;
  return shared / small.size;
}

/** The topic as a question: capitalised, ending with a question mark. */
function asQuestion(topic: string): string {
  const text = /[?？]$/.test(topic) ? topic : `${topic.replace(/[\s.。]+$/u, '')}?`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/** The extractive writer: passages' languages detected, then {@link buildExtractiveFaq}. */
export class ExtractiveFaqWriter implements FaqWriter {
  readonly kind = 'extractive' as const;
  readonly id = `extractive:${EXTRACTIVE_FAQ_VERSION}`;

  constructor(private readonly languages: LanguageDetector) {}

  async write(input: FaqWriteInput, signal?: AbortSignal): Promise<FaqPair[]> {
    signal?.throwIfAborted();
    // One detection per document, on the text of its passages.
    const byDocument = new Map<string, string>();
    for (const p of input.passages) byDocument.set(p.documentId, `${byDocument.get(p.documentId) ?? ''}\n${p.content}`.slice(0, 2_000));
    const detected = new Map<string, string>();
    for (const [id, text] of byDocument) {
      const language = await this.languages.detect(text);
      if (language) detected.set(id, primaryLanguage(language));
    }
    return buildExtractiveFaq({ ...input, passageLanguages: input.passages.map((p) => detected.get(p.documentId) ?? primaryLanguage(input.language)) });
  }
}
