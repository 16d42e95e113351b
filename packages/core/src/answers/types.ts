/**
 * What chat and the FAQ share: passages retrieved from the knowledge base, the sources they
 * name, and answerers that write from them.
 */

export type RetrievalMode = 'standard' | 'smart';

/** A section of a document given to an answerer (a hit widened to its parent section). */
export interface Passage {
  documentId: string;
  title: string;
  slug: string;
  namespace: string;
  /** The document's address, when it has one. */
  url?: string;
  /** Heading trail, document title first, joined by " > ". */
  headingPath: string;
  /** The page of its source the passage's best chunk starts on (a PDF's). */
  page?: number;
  /** The section's Markdown (its heading line included), or the hit chunks when the section is over budget. */
  content: string;
  /** Position of the section in its document (parents in document order). */
  ordinal: number;
  /** Relevance within this retrieval, higher is better (not comparable across queries). */
  score: number;
  /** Estimated tokens of `content`. */
  tokens: number;
}

/** A document an answer drew on, as the stream's `meta` event and stored messages name it. */
export interface Source {
  title: string;
  documentId: string;
  slug: string;
  namespace: string;
  url?: string;
  /**
   * With `url`: the anchor of the section the answer drew on first (`url#anchor`), when below the
   * title; for a PDF, its page (`page=N`, which PDF viewers open at).
   */
  anchor?: string;
  /** The heading of that section, when below the title (what a reader is shown beside the page's title). */
  section?: string;
  /** The page of a PDF the answer drew on first. */
  page?: number;
}

/**
 * One attribute of a heading's attribute block, as Hugo, Docusaurus, Pandoc and kramdown let
 * authors write it after the text (`## Options {#server-options .wide data-x="a b"}`): the site
 * shows the text and gives the heading that id. Ids and classes start with a letter, so that
 * `{.5}` stays text. Anchored and without nested repetition: headings are user input.
 */
const HEADING_ATTRIBUTE = /^(?:[#.][A-Za-z][\w:.-]*|[A-Za-z][\w-]*=(?:"[^"]*"|[^\s"'{}]+))$/u;

/** An attribute block's attributes, split at white space outside quotes; null when a quote is not closed. Linear. */
function attributesOf(block: string): string[] | null {
  const attributes: string[] = [];
  let at = 0;
  while (at < block.length) {
    while (at < block.length && /\s/.test(block.charAt(at))) at++;
    const start = at;
    while (at < block.length && !/\s/.test(block.charAt(at))) {
      if (block.charAt(at) !== '"') {
        at++;
        continue;
      }
      const close = block.indexOf('"', at + 1);
      if (close < 0) return null;
      at = close + 1;
    }
    if (at > start) attributes.push(block.slice(start, at));
  }
  return attributes;
}

function parseHeading(heading: string): { text: string; id?: string } {
  const text = heading.trim();
  const open = text.endsWith('}') ? text.lastIndexOf('{') : -1;
  if (open < 0) return { text };
  const attributes = attributesOf(text.slice(open + 1, -1).replace(/^:/, ''));
  if (!attributes || attributes.length === 0 || !attributes.every((attribute) => HEADING_ATTRIBUTE.test(attribute))) return { text };
  const id = attributes.find((attribute) => attribute.startsWith('#'))?.slice(1);
  return { text: text.slice(0, open).trim(), ...(id ? { id } : {}) };
}

/** A heading as the site shows it: without an attribute block such as `{#custom-id}`. */
export function headingText(heading: string): string {
  return parseHeading(heading).text;
}

/** A heading path (`Title > Section`) as the site shows its headings. */
export function displayHeadingPath(headingPath: string): string {
  return headingPath.includes('{') ? headingPath.split(' > ').map(headingText).join(' > ') : headingPath;
}

/**
 * The anchor a documentation site gives a heading: the id its author gave it (`{#custom-id}`), or
 * else the default of most sites (GitHub's and Hugo's): lower case, punctuation dropped, each space
 * a hyphen.
 */
export function headingAnchor(heading: string): string {
  const { text, id } = parseHeading(heading);
  if (id !== undefined) return id;
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchor of a passage's section: its last heading, when it is below the document's title. */
export function sectionAnchor(headingPath: string): string | undefined {
  const headings = headingPath.split(' > ');
  if (headings.length < 2) return undefined;
  const anchor = headingAnchor(headings.at(-1)!);
  return anchor === '' ? undefined : anchor;
}

/** The heading of a passage's section: its last heading, when it is below the document's title. */
export function sectionHeading(headingPath: string): string | undefined {
  const headings = headingPath.split(' > ');
  if (headings.length < 2) return undefined;
  const heading = headingText(headings.at(-1)!);
  return heading === '' ? undefined : heading;
}

/**
 * The address of a passage's section (its document's, with the section's anchor), when the
 * document has one; a PDF's is its page (`#page=N`), which PDF viewers open at, as its source's.
 */
export function sectionLink(passage: Pick<Passage, 'url' | 'headingPath' | 'page'>): string | undefined {
  if (!passage.url) return undefined;
  const anchor = passage.page !== undefined ? `page=${passage.page}` : sectionAnchor(passage.headingPath);
  return anchor ? `${passage.url}#${anchor}` : passage.url;
}

/** A message of the conversation so far, oldest first. */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface RetrieveInput {
  /** The user's message. */
  message: string;
  /** Earlier messages of the conversation, oldest first (shape a follow-up's retrieval). */
  history?: readonly HistoryMessage[];
  /** Namespaces to search; null or empty for all. */
  namespaces?: readonly string[] | null;
  mode?: RetrievalMode;
  /** Estimated tokens the passages may hold together (default: the configured context budget). */
  budgetTokens?: number;
  /** Most distinct documents the passages may come from (default 5). */
  maxDocuments?: number;
  /** Chunks a standard retrieval reads (default 10); wider reads find more sections (the FAQ's). */
  depth?: number;
}

export interface Retrieval {
  /** Best first. */
  passages: Passage[];
  /** The standalone query the passages were retrieved with (the message, completed from the history). */
  query: string;
  /** How close the knowledge base came to the query (SearchService.searchScored); null: nothing found. */
  bestSimilarity?: number | null;
  /** How many chunks of the knowledge base hold each content word of the message. */
  wordFrequencies?: WordFrequencies;
}

/** Chunks of the knowledge base holding each of some words, and the chunks in all. */
export interface WordFrequencies {
  chunks: number;
  frequencies: ReadonlyMap<string, number>;
}

export interface AnswerInput {
  /** The user's message, as asked. */
  question: string;
  /** The standalone query of the retrieval (a follow-up completed from the history). */
  query: string;
  /** BCP 47 tag of the language to answer in. */
  language: string;
  history: readonly HistoryMessage[];
  /** Best first. */
  passages: readonly Passage[];
  /**
   * How many chunks of the knowledge base hold each content word of the question (the
   * retrieval's): the built-in answerer weighs the evidence of the passages with it.
   */
  wordFrequencies?: WordFrequencies;
}

/** An answer being written: the passages it draws on are known before its first fragment. */
export interface AnswerStream {
  /** The passages the answer draws on, best first. */
  passages: readonly Passage[];
  /**
   * False when the answerer found nothing in the passages that answers (its `passages` are then
   * the closest the retrieval found, for the reader to look at). Default: whether there are passages.
   */
  answered?: boolean;
  /** Fragments of the answer, to be concatenated in order. */
  fragments: AsyncIterable<string>;
}

export interface Answerer {
  /** `claude` (ANTHROPIC_API_KEY set) or `extractive` (the built-in answerer). */
  readonly kind: 'claude' | 'extractive';
  /** Starts an answer; the model call, if any, starts when `fragments` is first read. */
  answer(input: AnswerInput, signal?: AbortSignal): Promise<AnswerStream>;
}

/** The distinct documents of passages, best first, as sources. */
export function sourcesOf(passages: readonly Passage[]): Source[] {
  const seen = new Set<string>();
  const sources: Source[] = [];
  for (const p of passages) {
    if (seen.has(p.documentId)) continue;
    seen.add(p.documentId);
    const anchor = p.url ? (p.page !== undefined ? `page=${p.page}` : sectionAnchor(p.headingPath)) : undefined;
    const section = sectionHeading(p.headingPath);
    sources.push({
      title: p.title,
      documentId: p.documentId,
      slug: p.slug,
      namespace: p.namespace,
      ...(p.url ? { url: p.url } : {}),
      ...(anchor ? { anchor } : {}),
      ...(section ? { section } : {}),
      ...(p.page !== undefined ? { page: p.page } : {}),
    });
  }
  return sources;
}
