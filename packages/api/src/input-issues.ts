/**
 * Invalid-input issues (zod's) as the API reports them: bounded, whatever the input. A caller's
 * values and names reach an answer only as short excerpts, and only so many of them: an object of
 * a million unknown fields, or one field of ten megabytes, is answered in a few hundred bytes.
 */

export interface InputIssue {
  code?: string;
  path?: Array<string | number>;
  message?: string;
  keys?: string[];
}

/** Issues an answer lists (the message counts the rest). */
export const MAX_ISSUES = 20;
/** Issues the message names. */
const ISSUES_IN_MESSAGE = 5;
/** Unknown field names an issue lists. */
const MAX_KEYS = 10;
/** Characters of a name, a path segment or a message an answer echoes. */
const MAX_NAME_CHARS = 100;
const MAX_MESSAGE_CHARS = 300;
/** Path segments an issue keeps (the JSON depth limit is 64; nothing deeper helps a reader). */
const MAX_PATH_SEGMENTS = 16;

/** `text`, cut to at most `max` characters (code points, never half a surrogate pair) with "…" when cut. */
export function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  const kept = Array.from(text.slice(0, max + 1)).slice(0, max - 1).join('');
  return `${kept}…`;
}

/**
 * A caller's value as an error message may quote it: JSON for a short string, number, boolean or
 * null, cut to an excerpt when long; the kind of anything else.
 */
export function quoteValue(value: unknown, max = 60): string {
  if (typeof value === 'string') return JSON.stringify(excerpt(value, max));
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** One issue, bounded: its code, path, message and unknown names, and its short scalar details (minimum, expected, ...). */
function boundIssue(issue: Record<string, unknown>): InputIssue & Record<string, unknown> {
  const bounded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(issue)) {
    if (name === 'path' && Array.isArray(value)) {
      bounded.path = value.slice(0, MAX_PATH_SEGMENTS).map((segment) => (typeof segment === 'string' ? excerpt(segment, MAX_NAME_CHARS) : segment));
    } else if (name === 'keys' && Array.isArray(value)) {
      bounded.keys = value.slice(0, MAX_KEYS).map((key) => excerpt(String(key), MAX_NAME_CHARS));
      if (value.length > MAX_KEYS) bounded.keysTotal = value.length;
    } else if (typeof value === 'string') {
      bounded[name] = excerpt(value, name === 'message' ? MAX_MESSAGE_CHARS : MAX_NAME_CHARS);
    } else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
      bounded[name] = typeof value === 'bigint' ? value.toString() : value;
    }
    // Anything else (a union's nested issues, an echoed input) is left out.
  }
  return bounded;
}

/** At most {@link MAX_ISSUES} issues, each bounded. */
export function boundIssues(issues: readonly unknown[]): Array<InputIssue & Record<string, unknown>> {
  return issues.slice(0, MAX_ISSUES).map((issue) => boundIssue(issue !== null && typeof issue === 'object' ? (issue as Record<string, unknown>) : { message: String(issue) }));
}

/** Invalid-input issues as one line: unknown fields by name, other problems by field path. */
function describeIssues(issues: readonly InputIssue[], total: number): string {
  const parts = issues.slice(0, ISSUES_IN_MESSAGE).map((issue) => {
    const where = (issue.path ?? []).join('.');
    if (issue.code === 'unrecognized_keys' && Array.isArray(issue.keys)) {
      const total = (issue as { keysTotal?: number }).keysTotal ?? issue.keys.length;
      const names = issue.keys.map((key) => JSON.stringify(excerpt(key, MAX_NAME_CHARS))).join(', ') + (total > issue.keys.length ? `, … (${total} in all)` : '');
      return `unknown field${total === 1 ? '' : 's'} ${names}${where ? ` in "${excerpt(where, MAX_NAME_CHARS)}"` : ''}`;
    }
    const message = excerpt(issue.message ?? 'invalid', MAX_MESSAGE_CHARS);
    return where ? `${excerpt(where, MAX_NAME_CHARS)}: ${message}` : message;
  });
  const more = total - Math.min(issues.length, ISSUES_IN_MESSAGE);
  return parts.join('; ') + (more > 0 ? ` (and ${more} more)` : '');
}

/** The message of an invalid-input answer: "Input validation failed: " and its problems (`total` of them, when only some are given). */
export function invalidInputMessage(issues: readonly InputIssue[], total = issues.length): string {
  return `Input validation failed: ${describeIssues(issues, total)}`;
}
