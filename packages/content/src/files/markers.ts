/**
 * Page markers: a line `<!-- kb:page N -->` in a document's Markdown says that what follows is on
 * page N of its source (a PDF). An HTML comment renders as nothing; the splitter gives each chunk
 * the page it starts on and takes the markers out of the chunks' text (see ../prepare.ts).
 */
export const PAGE_MARKER = /^<!-- kb:page (\d{1,6}) -->(?:\n|$)/gm;

export function pageMarker(page: number): string {
  return `<!-- kb:page ${page} -->`;
}

/** Whether the Markdown has page markers (cheap: most documents have none). */
export function hasPageMarkers(markdown: string): boolean {
  return markdown.includes('<!-- kb:page ');
}

/**
 * Text without its page markers, and the page it starts on: the first marker's when the text
 * begins with one, else `current`. `last` is the page in effect after the text.
 */
export function stripPageMarkers(text: string, current: number | null): { text: string; page: number | null; last: number | null } {
  let page = current;
  let last = current;
  let first = true;
  const stripped = text.replace(PAGE_MARKER, (_marker, n: string, offset: number) => {
    const value = Number(n);
    if (first && text.slice(0, offset).trim() === '') page = value;
    first = false;
    last = value;
    return '';
  });
  return { text: stripped.trim(), page, last };
}
