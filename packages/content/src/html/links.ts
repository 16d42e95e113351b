import type { Root } from 'hast';
import rehypeParse from 'rehype-parse';
import { unified } from 'unified';
import { prepareSource } from './source.ts';
import { stringProperty, walkElements } from './tree.ts';

/** Links one page contributes at most (a page of 100,000 links leads nowhere useful). */
export const MAX_PAGE_LINKS = 2_000;

export interface PageLinks {
  /** `href`s of `<a>` elements, resolved against the page (and its `<base href>`), in order, deduplicated. */
  links: string[];
  /** The `<link rel="canonical">` target, resolved, if any. */
  canonical: string | null;
  /** `<meta name="robots">` says noindex / nofollow. */
  noindex: boolean;
  nofollow: boolean;
}

const parser = unified().use(rehypeParse).freeze();

function resolve(href: string, base: string): string | null {
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/** The links of an HTML page, for following them (depth bounded as the converter bounds it). */
export function pageLinks(html: string, pageUrl: string): PageLinks {
  const tree = parser.parse(prepareSource(html, 256)) as Root;
  let base = pageUrl;
  const hrefs: string[] = [];
  let canonicalHref: string | undefined;
  let noindex = false;
  let nofollow = false;
  walkElements(tree, (element) => {
    const name = element.tagName;
    if (name === 'base') {
      const href = stringProperty(element, 'href');
      if (href && base === pageUrl) base = resolve(href, pageUrl) ?? pageUrl;
    } else if (name === 'a') {
      const href = stringProperty(element, 'href');
      if (href !== undefined && hrefs.length < MAX_PAGE_LINKS * 2) hrefs.push(href);
    } else if (name === 'link') {
      const rel: unknown = element.properties['rel'];
      const rels: string[] = Array.isArray(rel) ? rel.map(String) : typeof rel === 'string' ? rel.split(/\s+/) : [];
      if (canonicalHref === undefined && rels.some((r) => r.toLowerCase() === 'canonical')) canonicalHref = stringProperty(element, 'href');
    } else if (name === 'meta' && stringProperty(element, 'name')?.toLowerCase() === 'robots') {
      const content = (stringProperty(element, 'content') ?? '').toLowerCase();
      if (/\b(noindex|none)\b/.test(content)) noindex = true;
      if (/\b(nofollow|none)\b/.test(content)) nofollow = true;
    }
  });
  const links = new Set<string>();
  for (const href of hrefs) {
    const resolved = resolve(href, base);
    if (resolved !== null) links.add(resolved);
    if (links.size >= MAX_PAGE_LINKS) break;
  }
  return { links: [...links], canonical: canonicalHref === undefined ? null : resolve(canonicalHref, base), noindex, nofollow };
}
