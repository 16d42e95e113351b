import { attribute, childElement, textContent, type StorageElement } from './parse.ts';

/**
 * What links, images and emoticons of a page turn into: URLs made absolute against the site,
 * and the text that stands for resources a Markdown reader cannot follow (pages, attachments,
 * users are referenced by title, file name or id, not by URL).
 */

/** Makes an href absolute; null when it leads nowhere worth keeping (in-page anchors, scripts). */
export type UrlResolver = (href: string) => string | null;

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const UNSAFE_SCHEME = /^\s*(?:javascript|vbscript|data):/i;

/**
 * Resolves hrefs against `baseUrl`, the site base (`https://acme.atlassian.net/wiki`): it is
 * taken as a directory, so `spaces/ENG` lands under `/wiki/` and `/wiki/x` at the host root.
 */
export function createUrlResolver(baseUrl: string | undefined): UrlResolver {
  let base: URL | undefined;
  if (baseUrl) {
    try {
      base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    } catch {
      base = undefined;
    }
  }
  return (raw) => {
    const href = raw.trim();
    if (href === '' || href.startsWith('#') || UNSAFE_SCHEME.test(href)) return null;
    if (!base || SCHEME.test(href)) return href;
    try {
      return new URL(href, base).href;
    } catch {
      return href;
    }
  };
}

/** The text and URL an `ac:link` stands for, from its resource (`ri:page`, `ri:url`, ...). */
export interface LinkTarget {
  /** Followable URL (only `ri:url` has one), else null. */
  url: string | null;
  /** Text to show when the link has no body: page title, file name, user name, URL. */
  text: string;
}

export function linkTarget(link: StorageElement, resolve: UrlResolver): LinkTarget {
  for (const child of link.children) {
    if (typeof child === 'string' || !child.name.startsWith('ri:')) continue;
    switch (child.name) {
      case 'ri:url': {
        const value = attribute(child, 'ri:value') ?? '';
        return { url: resolve(value), text: value };
      }
      case 'ri:page':
      case 'ri:blog-post':
        return { url: null, text: attribute(child, 'ri:content-title') ?? '' };
      case 'ri:attachment':
        return { url: null, text: attribute(child, 'ri:filename') ?? '' };
      case 'ri:user':
        // Storage holds an account id, not a name; Server and Data Center pages may have one.
        return { url: null, text: attribute(child, 'ri:username') ?? '' };
      case 'ri:space':
        return { url: null, text: attribute(child, 'ri:space-key') ?? '' };
      case 'ri:shortcut':
        return { url: null, text: attribute(child, 'ri:parameter') ?? '' };
      default:
        return { url: null, text: '' };
    }
  }
  return { url: null, text: attribute(link, 'ac:anchor') ?? '' };
}

/** The text an `ac:image` stands for: its alt text or title, else the attachment's file name. */
export function imageText(image: StorageElement): string {
  const alt = attribute(image, 'ac:alt')?.trim() || attribute(image, 'ac:title')?.trim();
  if (alt) return alt;
  const attachment = childElement(image, 'ri:attachment');
  return attachment ? (attribute(attachment, 'ri:filename')?.trim() ?? '') : '';
}

/** The caption text of an `ac:image` when it adds to `text`, else ''. */
export function imageCaption(image: StorageElement, text: string): string {
  const caption = childElement(image, 'ac:caption');
  const captionText = caption ? textContent(caption).replace(/\s+/g, ' ').trim() : '';
  return captionText !== text ? captionText : '';
}

const ESCAPED_UTF16 = /\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})/g;

/**
 * The character of an `ac:emoticon`: its fallback (which Confluence sometimes stores as
 * `\uD83C\uDFA8` escapes), else the code points of its emoji id (`1f44d`, `1f1fa-1f1f8`), else ''.
 */
export function emoticonText(emoticon: StorageElement): string {
  const fallback = attribute(emoticon, 'ac:emoji-fallback')?.trim();
  if (fallback) {
    return fallback.replace(ESCAPED_UTF16, (match, high?: string, low?: string, single?: string) => {
      if (high && low) return String.fromCharCode(Number.parseInt(high, 16), Number.parseInt(low, 16));
      const code = Number.parseInt(single ?? '', 16);
      return code >= 0xd800 && code <= 0xdfff ? '' : String.fromCharCode(code);
    });
  }
  const id = attribute(emoticon, 'ac:emoji-id')?.trim() ?? '';
  if (!/^[0-9a-fA-F]{2,6}(?:-[0-9a-fA-F]{2,6}){0,7}$/.test(id)) return '';
  const codes = id.split('-').map((hex) => Number.parseInt(hex, 16));
  return codes.every((code) => code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) ? String.fromCodePoint(...codes) : '';
}
