import type { Root } from 'hast';
import { toHtml } from 'hast-util-to-html';
import rehypeParse from 'rehype-parse';
import { unified } from 'unified';
import { contentToMarkdown } from './convert.ts';
import { escapeHtml } from './elements.ts';
import { extractPage } from './extract.ts';
import { readabilityArticle } from './readability.ts';
import { prepareSource } from './source.ts';

export interface HtmlDocument {
  /** The page's own `<title>` (else og:title / twitter:title, else the first `<h1>`), or null. */
  title: string | null;
  markdown: string;
  /**
   * True when the main content was too large to convert whole (over 100,000 HTML nodes, several
   * times the longest encyclopedia article) and only its beginning is in `markdown`.
   */
  truncated: boolean;
}

export interface HtmlToMarkdownOptions {
  /** The page's URL: relative link targets are made absolute against it (and `<base href>`). */
  baseUrl?: string;
}

/**
 * Element nesting allowed into the parser (estimated on the source, see source.ts). The
 * converter flattens below MAX_CONVERTED_DEPTH anyway, so nothing is lost by capping here.
 */
const MAX_SOURCE_DEPTH = 256;

const parser = unified().use(rehypeParse).freeze();

function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/**
 * Parses HTML into hast with bounded depth. The source pre-pass is an estimate; should the tree
 * still be too deep for the parser's recursion, the page is parsed again with a much lower cap,
 * and as a last resort as plain text.
 */
function parseHtml(html: string): Root {
  try {
    return parser.parse(prepareSource(html, MAX_SOURCE_DEPTH));
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
  }
  try {
    return parser.parse(prepareSource(html, 32));
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
  }
  return parser.parse(`<pre>${escapeHtml(html)}</pre>`);
}

/**
 * Converts an HTML page to Markdown: picks the main content (`<main>`, `[role=main]`, the
 * largest `<article>`; on a page without them, the article Mozilla's Readability finds, else
 * `<body>`), drops page chrome, scripts and hidden elements, and writes GFM (ATX headings, `-`
 * bullets, fenced code with its language, pipe tables). Images become their alt text. Runs in
 * time linear in the page and never recurses per nesting level beyond a fixed bound (Readability
 * only sees pages within its bounds, readability.ts).
 *
 * Landmarks first: on documentation pages (benchmarked in bench/extract.bench.ts) they are more
 * faithful than Readability, which drops some tables and sections; without them, Readability is
 * far better than the whole body.
 */
export function htmlToMarkdown(html: string, options: HtmlToMarkdownOptions = {}): HtmlDocument {
  const page = extractPage(parseHtml(html));
  let content = page.content;
  if (!page.landmark) {
    // Readability scores what is left once the extractor has taken the chrome out: it chooses
    // among the blocks of content, never brings a banner or a menu back.
    const article = readabilityArticle(toHtml(page.content));
    if (article !== undefined) content = extractPage(parseHtml(article)).content;
  }
  const { markdown, truncated } = contentToMarkdown(content, { baseUrl: options.baseUrl, baseHref: page.baseHref });
  return { title: page.title, markdown, truncated };
}

/** The landmark-or-body extraction alone, without Readability (for the benchmark). */
export function htmlToMarkdownWithoutReadability(html: string, options: HtmlToMarkdownOptions = {}): HtmlDocument {
  const page = extractPage(parseHtml(html));
  const { markdown, truncated } = contentToMarkdown(page.content, { baseUrl: options.baseUrl, baseHref: page.baseHref });
  return { title: page.title, markdown, truncated };
}
