/** Small text helpers for writing Markdown from spec strings. */

const HTML_TAG = /<\/?(?:a|b|br|code|em|i|li|ol|p|pre|strong|ul)\b[^<>]*>/i;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/**
 * Descriptions are CommonMark, but some specs (Stripe) write HTML. The common tags are turned
 * into their Markdown equivalents; anything else is left as it is.
 */
export function descriptionToMarkdown(text: string): string {
  let result = text.replace(/\r\n?/g, '\n');
  if (HTML_TAG.test(result)) {
    result = result
      .replace(/<a\b[^<>]*?\bhref\s*=\s*"([^"<>]*)"[^<>]*>([^<>]*)<\/a>/gi, (_all, href: string, label: string) =>
        label.trim() === '' ? '' : `[${label.trim()}](${href})`,
      )
      .replace(/<\/?(?:strong|b)>/gi, '**')
      .replace(/<\/?(?:em|i)>/gi, '_')
      .replace(/<\/?code>/gi, '`')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<li\b[^<>]*>/gi, '\n- ')
      .replace(/<\/(?:li|ul|ol)>|<(?:ul|ol)\b[^<>]*>/gi, '\n')
      .replace(/<\/?(?:p|pre)\b[^<>]*>/gi, '\n\n')
      .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_all, name: string) => ENTITIES[name] ?? _all);
  }
  return result
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A description on one line (for bullets and table cells), at most `max` characters. */
export function inlineDescription(text: unknown, max = 400): string {
  if (typeof text !== 'string') return '';
  // Only the start can be shown; converting all of a huge description would be wasted work.
  const flat = descriptionToMarkdown(text.slice(0, max * 4)).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/** `text` as a Markdown code span (longer fences when it holds backticks). */
export function code(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  let fence = '`';
  while (flat.includes(fence)) fence += '`';
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** Escapes a table cell: pipes, and no line breaks. */
export function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
}

function preview(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  // Containers: a short one in full, otherwise an ellipsis (a default can be arbitrarily big).
  const entries = Array.isArray(value) ? value : Object.values(value);
  const small = entries.length <= 5 && entries.every((entry) => entry === null || typeof entry !== 'object');
  if (small) return JSON.stringify(value) ?? '';
  return Array.isArray(value) ? '[…]' : '{…}';
}

/** A value (enum member, default) shown in a code span, at most `max` characters. */
export function literal(value: unknown, max = 80): string {
  let text = preview(value);
  if (text.length > max) text = `${text.slice(0, max - 1)}…`;
  return code(text);
}
