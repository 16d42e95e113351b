/**
 * Included fragments in a document's Markdown: text that a source copies in from a shared file
 * (a Hugo `include`, a snippet) is set between two marker comments, each a block of its own:
 *
 *   <!-- kb:fragment _common/menu-entry-properties.md -->
 *   ...the fragment's text...
 *   <!-- kb:fragment-end -->
 *
 * The chunker makes chunks of such text apart from the page's own and records the fragment on
 * them, so that search can tell a fragment's copies in many pages for one passage. HTML comments
 * do not show in rendered Markdown, and the markers stay in the stored document so that a
 * re-split (reindex) finds them again. Markers nest (an include inside an include): the
 * innermost fragment is the origin of its text.
 */

const OPEN = /^<!-- kb:fragment (\S+) -->$/;
const CLOSE = '<!-- kb:fragment-end -->';
/** A marker line anywhere in a text, with the blank lines after it (for removing them). */
const MARKER_LINE = /^[ \t]*<!-- kb:fragment(?: \S+|-end) -->[ \t]*(?:\n[ \t]*(?=\n))*(?:\n|$)/gm;

/** The fragment's name as written in a marker: no white space, no `-->`. */
function encodeOrigin(origin: string): string {
  return encodeURI(origin).replace(/-->/g, '--%3E');
}

function decodeOrigin(written: string): string {
  try {
    return decodeURI(written);
  } catch {
    return written;
  }
}

/**
 * `text` set between the markers of the fragment `origin`, for a place at the start of a line
 * (followed by a line break): with a blank line around each marker, so that each is a block of
 * its own and the fragment's text joins no paragraph of the page.
 */
export function markFragment(text: string, origin: string): string {
  return `\n<!-- kb:fragment ${encodeOrigin(origin)} -->\n\n${text}\n\n${CLOSE}\n`;
}

/** What a block is: a fragment's opening marker (with its origin), its closing one, or neither. */
export function fragmentMarker(block: string): { open: string } | 'close' | null {
  const text = block.trim();
  if (!text.startsWith('<!-- kb:fragment')) return null;
  if (text === CLOSE) return 'close';
  const open = OPEN.exec(text);
  return open ? { open: decodeOrigin(open[1]!) } : null;
}

/** Whether a text holds any fragment marker (cheap test before {@link stripFragmentMarkers}). */
export function hasFragmentMarkers(text: string): boolean {
  return text.includes('<!-- kb:fragment');
}

/** The text without its fragment marker lines (what a reader of the section sees). */
export function stripFragmentMarkers(text: string): string {
  return hasFragmentMarkers(text) ? text.replace(MARKER_LINE, '') : text;
}
