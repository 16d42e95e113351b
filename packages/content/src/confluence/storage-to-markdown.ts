import { decodeEntities } from './storage/entities.ts';
import { escapeLineStart, escapeText } from './storage/escape.ts';
import { parseStorage } from './storage/parse.ts';
import { StorageRenderer } from './storage/render.ts';
import { createUrlResolver } from './storage/resources.ts';

/** Bump whenever the Markdown produced for a given input changes. */
export const STORAGE_CONVERTER_VERSION = 'wiki-storage-1';

export interface StorageToMarkdownOptions {
  /** Site base, e.g. https://acme.atlassian.net/wiki, used to make relative links absolute. */
  baseUrl?: string;
}

/**
 * Converts a page body in Confluence storage format (XHTML with `ac:` / `ri:` elements) to
 * CommonMark + GFM for the chunker:
 * - headings, paragraphs, emphasis, code, lists, block quotes, rules and GFM pipe tables (cells
 *   flattened to one line, `<br>` between their blocks);
 * - code and noformat macros as fenced blocks with their language; info / note / warning / tip /
 *   panel macros as block quotes under their bold title; expand macros as their bold title and
 *   body; task lists as GFM task items; layouts flattened;
 * - links as Markdown links when they lead to a URL (made absolute against `baseUrl`), else as
 *   their text (page title, file name); images as their alt text or file name; status macros,
 *   emoticons and dates as their text; tables of contents, anchors and placeholders dropped;
 *   unknown macros as their bodies, so no text is lost;
 * - text escaped only where Markdown would misread it.
 *
 * Runs in time linear in the input and never throws: malformed markup is read the way a
 * lenient HTML parser would, and nesting beyond a fixed depth is flattened.
 */
export function storageToMarkdown(storage: string, options: StorageToMarkdownOptions = {}): string {
  if (typeof storage !== 'string' || storage === '') return '';
  try {
    const renderer = new StorageRenderer(createUrlResolver(options.baseUrl));
    return renderer.render(parseStorage(storage));
  } catch {
    // Not expected to happen; a page must never fail to import because of its markup.
    return plainText(storage);
  }
}

/** The text of the markup as paragraphs, tags dropped: the last-resort conversion. */
function plainText(storage: string): string {
  const parts: string[] = [];
  let position = 0;
  while (position < storage.length) {
    const lt = storage.indexOf('<', position);
    const end = lt === -1 ? storage.length : lt;
    parts.push(storage.slice(position, end));
    if (lt === -1) break;
    const gt = storage.indexOf('>', lt);
    if (gt === -1) break;
    parts.push(' ');
    position = gt + 1;
  }
  const text = decodeEntities(parts.join('')).replace(/\s+/g, ' ').trim();
  return text === '' ? '' : `${escapeLineStart(escapeText(text))}\n`;
}
