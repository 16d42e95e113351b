export { htmlToMarkdown } from './html-to-markdown.ts';
export type { HtmlDocument, HtmlToMarkdownOptions } from './html-to-markdown.ts';
export { MAX_PAGE_LINKS, pageLinks } from './links.ts';
export type { PageLinks } from './links.ts';
