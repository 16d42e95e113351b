import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

/**
 * Cleaned markup (scripts, styles, hidden elements and page chrome gone, nesting capped) longer
 * than this is not given to Readability: a page without landmarks that large keeps the body. Real
 * documentation pages come to a few hundred kilobytes once cleaned.
 */
export const READABILITY_MAX_CHARS = 1_000_000;
/** Elements Readability may score; it refuses a larger page (its own bound on work). */
export const READABILITY_MAX_ELEMENTS = 100_000;

/**
 * The main content of a page without landmarks, as Mozilla's Readability (the reader view of
 * Firefox) chooses it, over linkedom's DOM: article HTML with its classes (code block languages
 * are read from them), or undefined when it finds no article or the page is over the bounds.
 */
export function readabilityArticle(html: string): string | undefined {
  if (html.length > READABILITY_MAX_CHARS) return undefined;
  try {
    const { document } = parseHTML(html);
    const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], {
      keepClasses: true,
      maxElemsToParse: READABILITY_MAX_ELEMENTS,
    }).parse();
    return article?.content && (article.textContent ?? '').trim() !== '' ? article.content : undefined;
  } catch {
    // Over maxElemsToParse, or a DOM Readability cannot handle: the body it is.
    return undefined;
  }
}
