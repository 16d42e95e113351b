export { htmlToMarkdown } from './html-to-markdown.ts';
export type { HtmlDocument, HtmlToMarkdownOptions } from './html-to-markdown.ts';
