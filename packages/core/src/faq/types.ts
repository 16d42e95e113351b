import type { Passage, Source } from '../answers/types.ts';

/** A question and its answer, with the documents the answer draws on. */
export interface FaqPair {
  /** One line, ending with a question mark. */
  question: string;
  /** Markdown. */
  answer: string;
  /** Documents the answer draws on, best first (ids of the passages' documents). */
  documentIds: string[];
}

export interface FaqWriteInput {
  /** The topic as asked. */
  topic: string;
  /** BCP 47 tag of the FAQ's language. */
  language: string;
  /** Passages retrieved for the topic, best first. */
  passages: readonly Passage[];
}

/** Writes an FAQ's pairs from passages: Claude or the built-in extractive writer. */
export interface FaqWriter {
  readonly kind: 'claude' | 'extractive';
  /**
   * What makes the entries (the model, or the extractive writer's version): a cached FAQ made
   * otherwise is made again.
   */
  readonly id: string;
  /** The pairs, best first; empty when the passages say nothing about the topic. */
  write(input: FaqWriteInput, signal?: AbortSignal): Promise<FaqPair[]>;
}

/** A document an FAQ draws on, with the content hash it had when the FAQ was made. */
export interface FaqSource extends Source {
  contentHash: string;
}

/** An FAQ as the API returns it. */
export interface Faq {
  /** The topic as asked. */
  query: string;
  /** The namespace searched, or `all`. */
  scope: string;
  language: string;
  /** Markdown: 5 to 10 `## Question?` headings, each followed by its answer and its sources. */
  content: string;
  /** Whether the FAQ was served from the cache (any request but the one that made it). */
  cached: boolean;
  sources: Source[];
  /** When the FAQ was made (ISO 8601). */
  generatedAt: string;
}

/** An FAQ has at least this many pairs when the knowledge base supports them, and at most the other. */
export const MIN_FAQ_PAIRS = 5;
export const MAX_FAQ_PAIRS = 10;
