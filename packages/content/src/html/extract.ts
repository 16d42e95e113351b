import type { Element, Parents, Root } from 'hast';
import { classTokens, collapsedText, stringProperty, textLength, walkElements } from './tree.ts';

/** Never content. */
const JUNK_ELEMENTS = new Set([
  'audio',
  'button',
  'canvas',
  'datalist',
  'dialog',
  'embed',
  'iframe',
  'input',
  'label',
  'link',
  'map',
  'math',
  'meta',
  'meter',
  'noscript',
  'object',
  'optgroup',
  'option',
  'output',
  'progress',
  'script',
  'select',
  'source',
  'style',
  'svg',
  'template',
  'textarea',
  'track',
  'video',
]);

/** Page chrome by element name. */
const CHROME_ELEMENTS = new Set(['aside', 'footer', 'header', 'nav']);

/** Page chrome by ARIA landmark role (the roles of the elements above, plus search). */
const CHROME_ROLES = new Set(['banner', 'complementary', 'contentinfo', 'navigation', 'search']);

/**
 * Page chrome by class or id: whole tokens only (`sidebar` matches, `has-sidebar` and
 * `sidebar-item-title` do not), compared case-insensitively.
 */
const CHROME_TOKENS = new Set([
  'breadcrumb',
  'breadcrumbs',
  'cookie-banner',
  'cookie-bar',
  'cookie-consent',
  'cookie-notice',
  'cookiebanner',
  'cookieconsent',
  'cookienotice',
  'main-menu',
  'mainmenu',
  'menu',
  'menubar',
  'nav',
  'nav-menu',
  'navbar',
  'navigation',
  'onetrust-banner-sdk',
  'onetrust-consent-sdk',
  'side-bar',
  'sidebar',
  'site-footer',
  'site-header',
  'site-nav',
  'skip-link',
  'skip-to-content',
  'table-of-contents',
  'toc',
]);

/** Cookie / consent banners named in other ways (`cookie-consent-banner`, `gdpr-notice`...). */
const CONSENT_TOKEN = /^(?:cookies?|gdpr|consent)[-_]?(?:consent[-_]?)?(?:banner|bar|notice|popup|modal|overlay|dialog)$/;

/**
 * 'hidden' when the element is not rendered (hidden attribute, display:none, visibility:hidden),
 * 'aria' when it is only hidden from assistive technology, false otherwise.
 */
function hiddenKind(element: Element): 'hidden' | 'aria' | false {
  const { properties } = element;
  const hidden: unknown = properties.hidden;
  if (hidden === true || typeof hidden === 'string') return 'hidden';
  const style = stringProperty(element, 'style');
  if (style && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i.test(style)) return 'hidden';
  const ariaHidden: unknown = properties.ariaHidden;
  if (ariaHidden === true || (typeof ariaHidden === 'string' && ariaHidden.toLowerCase() === 'true')) return 'aria';
  return false;
}

const isHidden = (element: Element): boolean => hiddenKind(element) !== false;

function isChromeByName(element: Element): boolean {
  const { tagName } = element;
  if (tagName === 'body' || tagName === 'html' || tagName === 'main' || tagName === 'article') return false;
  if (CHROME_ELEMENTS.has(tagName)) return true;
  const role = stringProperty(element, 'role')?.toLowerCase();
  if (role && role.split(/\s+/).some((token) => CHROME_ROLES.has(token))) return true;
  const id = stringProperty(element, 'id')?.toLowerCase();
  const tokens = classTokens(element).map((token) => token.toLowerCase());
  if (id) tokens.push(id);
  return tokens.some((token) => CHROME_TOKENS.has(token) || CONSENT_TOKEN.test(token));
}

function isMainLandmark(element: Element): boolean {
  if (element.tagName === 'main' || element.tagName === 'article') return true;
  return hasRole(element, 'main');
}

function hasRole(element: Element, role: string): boolean {
  const roles = stringProperty(element, 'role');
  return roles !== undefined && roles.toLowerCase().split(/\s+/).includes(role);
}

export interface ExtractedPage {
  title: string | null;
  /** The main content (an element of the page's tree), cleaned. */
  content: Parents;
  /** `<base href>`, when the page has one. */
  baseHref: string | undefined;
  /** Whether `content` is a landmark (`<main>`, `[role=main]`, `<article>`) rather than the body. */
  landmark: boolean;
}

interface Survey {
  title: string | undefined;
  metaTitle: string | undefined;
  firstH1: string | undefined;
  baseHref: string | undefined;
  /** Elements that contain a main or article landmark. */
  landmarkHolders: Set<Parents>;
}

/** One pass over the page for what is read before anything is removed. */
function survey(root: Root): Survey {
  const found: Survey = {
    title: undefined,
    metaTitle: undefined,
    firstH1: undefined,
    baseHref: undefined,
    landmarkHolders: new Set(),
  };
  walkElements(root, (element, _parent, ancestors) => {
    const { tagName } = element;
    if (tagName === 'svg' || tagName === 'math' || tagName === 'template') return 'skip';
    if (isMainLandmark(element)) {
      for (let level = ancestors.length - 1; level >= 0; level--) {
        const above = ancestors[level] as Parents;
        if (found.landmarkHolders.has(above)) break;
        found.landmarkHolders.add(above);
      }
    }
    if (tagName === 'title') {
      found.title ??= collapsedText(element) || undefined;
      return 'skip';
    }
    if (tagName === 'h1' && found.firstH1 === undefined && !isHidden(element)) {
      found.firstH1 = collapsedText(element) || undefined;
      return undefined;
    }
    if (tagName === 'meta' && found.metaTitle === undefined) {
      const key = (stringProperty(element, 'property') ?? stringProperty(element, 'name'))?.toLowerCase();
      if (key === 'og:title' || key === 'twitter:title') {
        found.metaTitle = stringProperty(element, 'content')?.replace(/\s+/g, ' ').trim() || undefined;
      }
    }
    if (tagName === 'base' && found.baseHref === undefined) found.baseHref = stringProperty(element, 'href') || undefined;
    return undefined;
  });
  return found;
}

/**
 * Title, `<base href>` and the cleaned main content: `<main>`, else `[role=main]`, else
 * `<article>` (the one with the most text in each case), else `<body>`. A candidate holding
 * under a fifth of the page's text (an `<article>` that is really one comment, say) is passed
 * over, as is an empty one.
 *
 * The title is the page's own `<title>`, else og:title / twitter:title, else the first `<h1>`.
 */
export function extractPage(root: Root): ExtractedPage {
  const found = survey(root);
  const title = found.title ?? found.metaTitle ?? found.firstH1 ?? null;

  let body: Parents = root;
  const mains: Element[] = [];
  const roleMains: Element[] = [];
  const articles: Element[] = [];
  walkElements(root, (element, parent) => {
    const { tagName } = element;
    if (JUNK_ELEMENTS.has(tagName)) {
      // A checkbox in a list item is a task-list marker.
      const taskMarker =
        tagName === 'input' &&
        stringProperty(element, 'type')?.toLowerCase() === 'checkbox' &&
        parent.type === 'element' &&
        (parent.tagName === 'li' || parent.tagName === 'p');
      return taskMarker ? undefined : 'remove';
    }
    // Pages saved with a modal open mark everything behind it aria-hidden: that alone does not
    // drop an element holding the main content.
    const hidden = hiddenKind(element);
    if (hidden === 'hidden') return 'remove';
    const holdsContent = found.landmarkHolders.has(element);
    if (hidden === 'aria' && !holdsContent) return 'remove';
    if (!holdsContent && isChromeByName(element)) return 'remove';
    if (tagName === 'body' && body === root) body = element;
    else if (tagName === 'main') mains.push(element);
    else if (tagName === 'article') articles.push(element);
    if (tagName !== 'main' && hasRole(element, 'main')) roleMains.push(element);
    return undefined;
  });

  const bodyLength = textLength(body);
  let content: Parents = body;
  let landmark = false;
  for (const group of [mains, roleMains, articles]) {
    let best: Element | undefined;
    let bestLength = 0;
    for (const candidate of group) {
      const length = textLength(candidate);
      if (length > bestLength) {
        best = candidate;
        bestLength = length;
      }
    }
    if (best && bestLength * 5 >= bodyLength) {
      content = best;
      landmark = true;
      break;
    }
  }
  return { title, content, baseHref: found.baseHref, landmark };
}
