/**
 * Documentation pages for the extraction benchmark: real Markdown pages (the Hugo documentation)
 * rendered to HTML and set in the page chrome of five common documentation generators, written
 * here after the markup those generators publish (landmarks, class names, widgets): a Docusaurus
 * site, MkDocs Material, Sphinx with the Read the Docs theme, Hugo with Docsy, and a GitBook-like
 * single-page app without landmarks. Each has a top navigation, a long sidebar, breadcrumbs, an
 * on-page table of contents, "Edit this page", a cookie banner, copy buttons in code blocks,
 * previous/next links, a feedback widget and a footer. The expected text of a page is its rendered
 * article (title and body) alone.
 */
import type { Root as HastRoot } from 'hast';
import { toHtml } from 'hast-util-to-html';
import type { Root as MdastRoot } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';

const toHast = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml', 'toml']).use(remarkRehype).freeze();

/** Markdown body to HTML, the way a generator renders it (with `language-x` on code). */
export function renderMarkdown(markdown: string): string {
  const mdast = toHast.parse(markdown) as MdastRoot;
  const hast = toHast.runSync(mdast) as HastRoot;
  return toHtml(hast);
}

export type Theme = 'docusaurus' | 'material' | 'sphinx-rtd' | 'docsy' | 'spa';
export const THEMES: readonly Theme[] = ['docusaurus', 'material', 'sphinx-rtd', 'docsy', 'spa'];

const SIDEBAR_SECTIONS = ['Getting started', 'Content management', 'Templates', 'Functions', 'Methods', 'Configuration', 'Troubleshooting'];

function sidebarLinks(prefix: string): string {
  return SIDEBAR_SECTIONS.map(
    (section, s) =>
      `<li class="${prefix}-category"><a class="${prefix}-link" href="/s${s}/">${section}</a><ul>${Array.from(
        { length: 8 },
        (_, n) => `<li class="${prefix}-item"><a class="${prefix}-link" href="/s${s}/p${n}/">${section} page ${n + 1}</a></li>`,
      ).join('')}</ul></li>`,
  ).join('');
}

function tocLinks(headings: string[]): string {
  return headings.map((h, n) => `<li><a href="#h${n}">${h}</a></li>`).join('');
}

const COOKIE_TEXT = 'We use cookies to improve your experience and analyse traffic. By clicking Accept you agree to our use of cookies.';

/** Code blocks as generators wrap them: a toolbar with a copy button. */
function withCopyButtons(html: string, theme: Theme): string {
  return html.replace(/<pre>([\s\S]*?)<\/pre>/g, (_, code: string) => {
    switch (theme) {
      case 'docusaurus':
        return `<div class="codeBlockContainer theme-code-block"><div class="codeBlockContent"><pre class="prism-code" tabindex="0">${code}</pre><div class="buttonGroup"><button type="button" aria-label="Copy code to clipboard" title="Copy" class="clean-btn"><span class="copyButtonIcons">Copy</span></button></div></div></div>`;
      case 'material':
        return `<div class="highlight"><pre><span></span><button class="md-clipboard md-icon" title="Copy to clipboard"></button>${code}</pre></div>`;
      case 'sphinx-rtd':
        return `<div class="highlight-default notranslate"><div class="highlight"><pre>${code}</pre><button class="copybtn o-tooltip--left" data-tooltip="Copy">Copy</button></div></div>`;
      case 'docsy':
        return `<div class="highlight"><pre tabindex="0">${code}</pre><div class="click-to-copy"><button class="td-click-to-copy" aria-label="Copy to clipboard">Copy</button></div></div>`;
      case 'spa':
        return `<div class="code-block"><div class="code-header"><span>Code</span><span class="copy" role="button">Copy</span></div><pre>${code}</pre></div>`;
    }
  });
}

/** GitHub-style alerts rendered as the generator's admonition box. */
function withAdmonitions(html: string, theme: Theme): string {
  return html.replace(/<blockquote>\s*<p>\[!(NOTE|TIP|WARNING|IMPORTANT|CAUTION)\]\s*/g, (_, kind: string) => {
    const label = kind.charAt(0) + kind.slice(1).toLowerCase();
    if (theme === 'docusaurus') return `<blockquote class="theme-admonition alert alert--info"><div class="admonitionHeading">${label}</div><p>`;
    if (theme === 'material' || theme === 'sphinx-rtd') return `<blockquote class="admonition note"><p class="admonition-title">${label}</p><p>`;
    return `<blockquote class="alert alert-info" role="alert"><div class="alert-heading">${label}</div><p>`;
  });
}

export interface DocPage {
  html: string;
  /** The article alone: what extraction should give. */
  expectedHtml: string;
}

/** A page of the given theme around a rendered article. */
export function docPage(theme: Theme, title: string, articleHtml: string): DocPage {
  const headings = [...articleHtml.matchAll(/<h2[^>]*>([\s\S]*?)<\/h2>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
  let n = 0;
  const body = withAdmonitions(withCopyButtons(articleHtml, theme), theme).replace(/<h2>/g, () => `<h2 id="h${n++}">`);
  const expectedHtml = `<h1>${title}</h1>\n${articleHtml}`;
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} | Hugo</title><meta name="viewport" content="width=device-width"><link rel="stylesheet" href="/css/site.css"><script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}</script></head>`;
  const edit = `<a href="https://github.com/gohugoio/hugoDocs/edit/master/content/page.md" class="edit-link">Edit this page</a>`;
  const prevNext = `<a class="pagination-nav__link" href="/prev/"><div class="label">Previous</div><div class="title">Installation</div></a><a class="pagination-nav__link" href="/next/"><div class="label">Next</div><div class="title">Configuration</div></a>`;
  switch (theme) {
    case 'docusaurus':
      return {
        expectedHtml,
        html: `${head}<body><div id="__docusaurus"><div role="region" aria-label="Skip to main content"><a class="skipToContent" href="#__docusaurus_skipToContent_fallback">Skip to main content</a></div>
<nav aria-label="Main" class="navbar navbar--fixed-top"><div class="navbar__inner"><a class="navbar__brand" href="/">Hugo</a><a class="navbar__item" href="/docs/">Docs</a><a class="navbar__item" href="/blog/">Blog</a><a class="navbar__item" href="/community/">Community</a><div class="navbar__search"><input placeholder="Search" aria-label="Search"></div></div></nav>
<div class="main-wrapper"><div class="docsWrapper"><div class="docRoot"><aside class="theme-doc-sidebar-container"><nav aria-label="Docs sidebar" class="menu thin-scrollbar"><ul class="theme-doc-sidebar-menu menu__list">${sidebarLinks('menu__list')}</ul></nav></aside>
<main class="docMainContainer"><div class="container padding-top--md"><div class="row"><div class="col docItemCol"><div class="docItemContainer"><article><nav class="theme-doc-breadcrumbs" aria-label="Breadcrumbs"><ul class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/docs/">Docs</a></li><li>${title}</li></ul></nav>
<div class="theme-doc-markdown markdown"><header><h1>${title}</h1></header>${body}</div>
<footer class="theme-doc-footer docusaurus-mt-lg"><div class="row margin-top--sm theme-doc-footer-edit-meta-row"><div class="col">${edit}</div><div class="col lastUpdated">Last updated on Nov 3, 2026 by a contributor</div></div></footer></article>
<nav class="pagination-nav docusaurus-mt-lg" aria-label="Docs pages">${prevNext}</nav></div></div>
<div class="col col--3"><div class="tableOfContents thin-scrollbar theme-doc-toc-desktop"><ul class="table-of-contents">${tocLinks(headings)}</ul></div></div></div></div></main></div></div></div>
<footer class="footer footer--dark"><div class="container"><div class="footer__links"><a href="/docs/">Docs</a><a href="/community/">Community</a><a href="/blog/">Blog</a></div><div class="footer__copyright">Copyright © 2026 The Hugo Authors. Built with Docusaurus.</div></div></footer>
<div class="cookie-consent-banner"><p>${COOKIE_TEXT}</p><button>Accept</button><button>Decline</button></div></div></body></html>`,
      };
    case 'material':
      return {
        expectedHtml,
        html: `${head}<body dir="ltr" data-md-color-scheme="default"><input class="md-toggle" data-md-toggle="drawer" type="checkbox" id="__drawer"><a href="#h0" class="md-skip">Skip to content</a>
<header class="md-header" data-md-component="header"><nav class="md-header__inner md-grid" aria-label="Header"><a href="/" class="md-header__button md-logo">Hugo</a><div class="md-header__title"><span class="md-ellipsis">Hugo documentation</span></div><div class="md-search" data-md-component="search" role="dialog"><input type="text" class="md-search__input" placeholder="Search"></div><div class="md-header__source"><a href="https://github.com/gohugoio/hugo" class="md-source"><div class="md-source__repository">gohugoio/hugo</div></a></div></nav></header>
<div class="md-container" data-md-component="container"><nav class="md-tabs" aria-label="Tabs"><ul class="md-tabs__list"><li class="md-tabs__item"><a href="/" class="md-tabs__link">Home</a></li><li class="md-tabs__item"><a href="/guide/" class="md-tabs__link">Guide</a></li><li class="md-tabs__item"><a href="/reference/" class="md-tabs__link">Reference</a></li></ul></nav>
<main class="md-main" data-md-component="main"><div class="md-main__inner md-grid"><div class="md-sidebar md-sidebar--primary" data-md-component="sidebar" data-md-type="navigation"><div class="md-sidebar__scrollwrap"><div class="md-sidebar__inner"><nav class="md-nav md-nav--primary" aria-label="Navigation"><ul class="md-nav__list">${sidebarLinks('md-nav')}</ul></nav></div></div></div>
<div class="md-sidebar md-sidebar--secondary" data-md-component="sidebar" data-md-type="toc"><div class="md-sidebar__scrollwrap"><div class="md-sidebar__inner"><nav class="md-nav md-nav--secondary" aria-label="Table of contents"><label class="md-nav__title">Table of contents</label><ul class="md-nav__list">${tocLinks(headings)}</ul></nav></div></div></div>
<div class="md-content" data-md-component="content"><article class="md-content__inner md-typeset"><a href="https://github.com/gohugoio/hugoDocs/edit/master/docs/page.md" title="Edit this page" class="md-content__button md-icon">Edit this page</a><h1>${title}</h1>${body}
<aside class="md-source-file"><span class="md-source-file__fact">Last update: November 3, 2026</span></aside><form class="md-feedback" name="feedback"><fieldset><legend class="md-feedback__title">Was this page helpful?</legend><button type="submit">Yes</button><button type="submit">No</button></fieldset></form></article></div></div></main>
<footer class="md-footer"><nav class="md-footer__inner md-grid" aria-label="Footer"><a href="/prev/" class="md-footer__link md-footer__link--prev"><span class="md-footer__direction">Previous</span><div class="md-ellipsis">Installation</div></a><a href="/next/" class="md-footer__link md-footer__link--next"><span class="md-footer__direction">Next</span><div class="md-ellipsis">Configuration</div></a></nav><div class="md-footer-meta md-typeset"><div class="md-copyright">Copyright © 2026 The Hugo Authors. Made with Material for MkDocs</div></div></footer></div>
<div class="md-consent" data-md-component="consent" id="__consent"><div class="md-consent__overlay"></div><aside class="md-consent__inner"><form class="md-consent__form md-grid md-typeset" name="consent"><h4>Cookie consent</h4><p>${COOKIE_TEXT}</p><div class="md-consent__controls"><button class="md-button md-button--primary">Accept</button><button class="md-button">Manage settings</button></div></form></aside></div></body></html>`,
      };
    case 'sphinx-rtd':
      return {
        expectedHtml,
        html: `${head}<body class="wy-body-for-nav"><div class="wy-grid-for-nav"><nav data-toggle="wy-nav-shift" class="wy-nav-side"><div class="wy-side-scroll"><div class="wy-side-nav-search"><a href="/" class="icon icon-home">Hugo</a><div class="version">0.153</div><div role="search"><form id="rtd-search-form" class="wy-form" action="/search.html" method="get"><input type="text" name="q" placeholder="Search docs"></form></div></div>
<div class="wy-menu wy-menu-vertical" data-spy="affix" role="navigation" aria-label="Navigation menu"><p class="caption" role="heading"><span class="caption-text">Contents</span></p><ul class="current">${sidebarLinks('toctree-l1')}</ul></div></div></nav>
<section data-toggle="wy-nav-shift" class="wy-nav-content-wrap"><nav class="wy-nav-top" aria-label="Mobile navigation menu"><a href="/">Hugo</a></nav><div class="wy-nav-content"><div class="rst-content"><div role="navigation" aria-label="Page navigation"><ul class="wy-breadcrumbs"><li><a href="/" class="icon icon-home"></a> »</li><li>Guide »</li><li>${title}</li><li class="wy-breadcrumbs-aside"><a href="https://github.com/gohugoio/hugoDocs/blob/master/docs/page.rst" class="fa fa-github"> Edit on GitHub</a></li></ul><hr></div>
<div role="main" class="document" itemscope="itemscope" itemtype="http://schema.org/Article"><div itemprop="articleBody"><section id="page"><h1>${title}<a class="headerlink" href="#page" title="Permalink to this heading">¶</a></h1>${body}</section></div></div>
<footer><div class="rst-footer-buttons" role="navigation" aria-label="Footer"><a href="/prev/" class="btn btn-neutral float-left" title="Installation" accesskey="p" rel="prev"><span class="fa fa-arrow-circle-left" aria-hidden="true"></span> Previous</a><a href="/next/" class="btn btn-neutral float-right" title="Configuration" accesskey="n" rel="next">Next <span class="fa fa-arrow-circle-right" aria-hidden="true"></span></a></div><hr><div role="contentinfo"><p>© Copyright 2026, The Hugo Authors.</p></div>Built with <a href="https://www.sphinx-doc.org/">Sphinx</a> using a theme provided by Read the Docs.</footer></div></div></section></div>
<div class="rst-versions" data-toggle="rst-versions" role="note" aria-label="Versions"><span class="rst-current-version" data-toggle="rst-current-version"><span class="fa fa-book"> Read the Docs</span> v: latest</span></div>
<div id="cookie-notice"><p>${COOKIE_TEXT}</p><button>Accept</button></div></body></html>`,
      };
    case 'docsy':
      return {
        expectedHtml,
        html: `${head}<body class="td-page"><header><nav class="td-navbar navbar-dark js-navbar-scroll" data-bs-theme="dark"><div class="container-fluid flex-column flex-md-row"><a class="navbar-brand" href="/"><span class="navbar-brand__name">Hugo</span></a><div class="td-navbar-nav-scroll ms-md-auto" id="main_navbar"><ul class="navbar-nav"><li class="nav-item"><a class="nav-link" href="/about/"><span>About</span></a></li><li class="nav-item"><a class="nav-link active" href="/docs/"><span>Documentation</span></a></li><li class="nav-item"><a class="nav-link" href="/blog/"><span>Blog</span></a></li></ul></div><div class="td-navbar__search"><div class="td-search"><input type="search" class="form-control td-search__input" placeholder="Search this site…" aria-label="Search this site…" autocomplete="off"></div></div></div></nav></header>
<div class="container-fluid td-outer"><div class="td-main"><div class="row flex-xl-nowrap"><aside class="col-12 col-md-3 col-xl-2 td-sidebar d-print-none"><div id="td-sidebar-menu" class="td-sidebar__inner"><nav class="td-sidebar-nav collapse" id="td-section-nav"><ul class="td-sidebar-nav__section">${sidebarLinks('td-sidebar-nav')}</ul></nav></div></aside>
<aside class="d-none d-xl-block col-xl-2 td-sidebar-toc d-print-none"><div class="td-page-meta ms-2 pb-1 pt-2 mb-0"><a href="https://github.com/gohugoio/hugoDocs/edit/master/content/en/page.md" target="_blank"><i class="fa-solid fa-pen-to-square fa-fw"></i> Edit this page</a><a href="https://github.com/gohugoio/hugoDocs/new/master/content/en" target="_blank"><i class="fa-solid fa-edit fa-fw"></i> Create child page</a><a href="https://github.com/gohugoio/hugoDocs/issues/new?title=Page" target="_blank"><i class="fab fa-github fa-fw"></i> Create documentation issue</a></div><div class="td-toc"><nav id="TableOfContents"><ul>${tocLinks(headings)}</ul></nav></div></aside>
<main class="col-12 col-md-9 col-xl-8 ps-md-5" role="main"><nav aria-label="breadcrumb" class="td-breadcrumbs"><ol class="breadcrumb"><li class="breadcrumb-item"><a href="/docs/">Documentation</a></li><li class="breadcrumb-item active" aria-current="page">${title}</li></ol></nav>
<div class="td-content"><h1>${title}</h1><div class="lead">${title} in Hugo.</div><header class="article-meta"></header>${body}
<div class="d-print-none"><h2 class="feedback--title">Feedback</h2><p class="feedback--question">Was this page helpful?</p><button class="btn btn-primary mb-4 feedback--answer feedback--answer-yes">Yes</button> <button class="btn btn-primary mb-4 feedback--answer feedback--answer-no">No</button></div>
<div class="td-page-meta__lastmod">Last modified November 3, 2026: <a href="https://github.com/gohugoio/hugoDocs/commit/abc">Update page (abc)</a></div></div></main></div></div>
<footer class="td-footer row d-print-none"><div class="container-fluid"><div class="row mx-md-2"><div class="td-footer__left col-6 col-sm-4 order-sm-1"><ul class="td-footer__links-list"><li class="td-footer__links-item"><a href="/community/">Community</a></li></ul></div><div class="td-footer__center col-12 col-sm-4 py-2 order-sm-2"><span class="td-footer__copyright">© 2026 The Hugo Authors All Rights Reserved</span></div></div></div></footer></div>
<div class="cookie-banner" id="cookie-banner"><p>${COOKIE_TEXT}</p><button>Accept</button></div></body></html>`,
      };
    case 'spa':
      return {
        expectedHtml,
        html: `${head}<body><div id="root"><div class="css-175oi2r app-shell"><div class="css-1dbjc4n header"><a class="css-logo" href="/">Hugo</a><div class="css-search"><span>Search…</span><span>Ctrl + K</span></div><div class="css-links"><a href="/docs/">Docs</a><a href="/api/">API reference</a><a href="/changelog/">Changelog</a></div></div>
<div class="css-1dbjc4n layout"><div class="css-sidebar-root"><div class="css-sidebar-scroll"><ul>${sidebarLinks('css-1xnox')}</ul></div></div>
<div class="css-content-root"><div class="css-page-breadcrumbs"><a href="/docs/">Docs</a> / <span>${title}</span></div><div class="css-1dbjc4n page-content"><div class="css-header-1"><h1>${title}</h1></div><div class="css-175oi2r reset-3c756112--markdown">${body}</div></div>
<div class="css-page-footer"><div class="css-helpful"><span>Was this page helpful?</span><button>👍</button><button>👎</button></div><div class="css-nav-links">${prevNext}</div><div class="css-updated">Last updated 3 days ago</div>${edit}</div></div>
<div class="css-toc-root"><div class="css-toc-title">On this page</div><ul>${tocLinks(headings)}</ul></div></div>
<div class="css-footer"><span>Powered by a documentation platform</span></div></div></div>
<div class="css-consent"><div class="css-consent-text">${COOKIE_TEXT}</div><button>Accept all</button><button>Reject all</button></div></body></html>`,
      };
  }
}
