/**
 * Markdown escaping for text taken from a page. The aim is text that reads as it was written
 * once parsed: characters are escaped only where CommonMark / GFM could take them as markup
 * (`snake_case`, `a * b`, `a < b` and `AT&T` stay as they are).
 */

/** Characters that may need escaping anywhere in a line; text without them is returned as is. */
const SPECIAL = /[\\`*_[\]<&~]/g;

/** A character reference that a Markdown parser would decode, at the current position. */
const REFERENCE = /&(?:#\d{1,8}|#[xX][0-9a-fA-F]{1,7}|[A-Za-z][A-Za-z0-9]{0,31});/y;
/** `&` followed by reference-like characters up to the end of the text (it may continue). */
const REFERENCE_PREFIX = /&#?[A-Za-z0-9]*$/y;

const isAsciiPunctuation = (code: number): boolean =>
  (code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126);

const NON_WORD = /[\p{P}\p{S}\p{Z}]/u;

/**
 * Letters and digits, as the Markdown parser's flanking rules see them: neither whitespace nor
 * punctuation, one UTF-16 unit at a time (so astral characters such as emoji count).
 */
function isWordCode(code: number): boolean {
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  return !NON_WORD.test(String.fromCharCode(code));
}

const isSpaceCode = (code: number): boolean => code === 32 || code === 9 || code === 10;

function needsEscape(text: string, index: number, code: number, inLink: boolean): boolean {
  const previous = index > 0 ? text.charCodeAt(index - 1) : -1;
  const next = index + 1 < text.length ? text.charCodeAt(index + 1) : -1;
  switch (code) {
    case 92: // \ before punctuation (or before whatever follows this text)
      return next === -1 || isAsciiPunctuation(next);
    case 96: // `
    case 91: // [
      return true;
    case 93: // ]
      return inLink;
    case 42: // * and ~ delimit emphasis unless they stand between spaces
    case 126:
      return !(isSpaceCode(previous) && isSpaceCode(next));
    case 95: // _ only delimits at the edge of a word
      return !(isWordCode(previous) && isWordCode(next));
    case 60: // < may open an HTML tag or an autolink
      return next === -1 || next === 33 || next === 47 || next === 63 || (next >= 65 && next <= 90) || (next >= 97 && next <= 122);
    case 38: // & may start a character reference
      REFERENCE.lastIndex = index;
      if (REFERENCE.test(text)) return true;
      REFERENCE_PREFIX.lastIndex = index;
      return REFERENCE_PREFIX.test(text);
    default:
      return false;
  }
}

/**
 * A bare URL that GFM turns into a link by itself: at the start of the text or after
 * whitespace or `(`, a scheme or `www.`, then a domain, up to whitespace or `<`.
 */
const BARE_URL = /(?<=^|[\s(])(?:(?:https?|ftp):\/\/|www\.)[A-Za-z0-9][-\w.]*[^\s<]*/gi;

/** Characters left unescaped inside a bare URL, which would otherwise keep the backslash. */
const URL_SAFE = new Set([42, 91, 93, 95, 126]); // * [ ] _ ~

/** Start and end offsets of the bare URLs in `text`, or null when there are none. */
function bareUrls(text: string): number[] | null {
  if (!text.includes('://') && !/www\./i.test(text)) return null;
  const ranges: number[] = [];
  BARE_URL.lastIndex = 0;
  for (let match = BARE_URL.exec(text); match !== null; match = BARE_URL.exec(text)) {
    ranges.push(match.index, match.index + match[0].length);
  }
  return ranges.length > 0 ? ranges : null;
}


/**
 * Escapes inline markup characters in a run of text (whitespace already collapsed). The ends of
 * the run count as non-space, since other markup may follow. Inside link text, `]` is escaped
 * too.
 */
export function escapeText(text: string, inLink = false): string {
  SPECIAL.lastIndex = 0;
  let match = SPECIAL.exec(text);
  if (match === null) return text;
  const urls = inLink ? null : bareUrls(text);
  /** The first URL range not ending before the current character (matches come in order). */
  let url = 0;
  let out = '';
  let from = 0;
  while (match !== null) {
    const { index } = match;
    const code = text.charCodeAt(index);
    if (urls) while (url < urls.length && (urls[url + 1] as number) <= index) url += 2;
    const inUrl = urls !== null && url < urls.length && index >= (urls[url] as number);
    if (needsEscape(text, index, code, inLink) && !(inUrl && URL_SAFE.has(code))) {
      out += `${text.slice(from, index)}\\`;
      from = index;
    }
    match = SPECIAL.exec(text);
  }
  return out + text.slice(from);
}

/**
 * Block constructs a paragraph line could be mistaken for, by its start: ATX headings, block
 * quotes, bullets, thematic breaks and setext underlines, front matter fences, and ordered-list
 * markers (group 1, the number, is kept before the backslash). No nested quantifiers can
 * backtrack, so a match costs linear time on any line.
 */
const LINE_START = /^(?:#{1,6}(?:[ \t]|$)|>|[-+*](?:[ \t]|$)|(?:-[ \t]*)+$|=+[ \t]*$|\++[ \t]*$|(\d{1,9})[.)](?:[ \t]|$))/;
/** A GFM table delimiter row (`| --- | :-: |`). */
const DELIMITER_ROW = /^[-:| \t]*$/;

/**
 * Escapes what would make a paragraph line start a block construct (the line is trimmed; the
 * inline markup in it is already escaped).
 */
export function escapeLineStart(line: string): string {
  const match = LINE_START.exec(line);
  if (match) {
    const keep = match[1] ?? '';
    return `${keep}\\${line.slice(keep.length)}`;
  }
  const first = line.charCodeAt(0);
  // - : |
  if ((first === 45 || first === 58 || first === 124) && line.includes('|') && DELIMITER_ROW.test(line)) return `\\${line}`;
  return line;
}

/** Escapes a trailing `#` run that an ATX heading would otherwise drop as a closing sequence. */
export function escapeHeadingEnd(text: string): string {
  const match = /(^|[ \t])(#+)$/.exec(text);
  return match ? `${text.slice(0, text.length - (match[2] as string).length)}\\${match[2] as string}` : text;
}

/** Length of the longest run of `char` in `text`. */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (let index = text.indexOf(char); index !== -1; ) {
    run = 1;
    while (text[index + run] === char) run++;
    if (run > longest) longest = run;
    index = text.indexOf(char, index + run);
  }
  return longest;
}

/** A code span holding `text` verbatim (whitespace collapsed by the caller), or '' when empty. */
export function codeSpan(text: string): string {
  if (text.trim() === '') return '';
  const fence = '`'.repeat(longestRun(text, '`') + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || (text.startsWith(' ') && text.endsWith(' ')) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * A link destination: characters that would end or confuse it (spaces, controls, angle
 * brackets, backslashes) are percent-encoded and parentheses escaped.
 */
export function linkDestination(url: string): string {
  return url.replace(/[\u0000-\u0020\u007f<>\\]/g, (char) => encodeURIComponent(char)).replace(/[()]/g, '\\$&');
}

/** An autolink (`<https://example.com>`) for a URL that can be written as one, else null. */
export function autolink(url: string): string | null {
  return /^[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\u0000-\u0020<>\u007f]*$/.test(url) ? `<${url}>` : null;
}
