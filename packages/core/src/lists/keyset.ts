import { sql, type RawBuilder } from 'kysely';
import { AppError } from '../errors.ts';
import { isUuid } from '../ids.ts';

/**
 * Keyset pages of the admin lists: a page ends with a cursor naming its last row's sort key (a
 * timestamp to the microsecond and the row's id), and the next page starts strictly after it, so
 * reading page 1,000 costs what reading page 1 does (an offset makes the store read and drop every
 * row before it). The cursor is opaque to clients: base64url of the pair.
 */
export interface KeysetPosition {
  /** The sort timestamp, ISO 8601 in UTC with microseconds, as the store holds it. */
  at: string;
  id: string;
}

const MICROSECOND_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString('base64url');
}

/** The position a cursor names; 400 for anything a list did not return. */
export function decodeCursor(cursor: string): KeysetPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && MICROSECOND_ISO.test(parsed[0]) && typeof parsed[1] === 'string' && isUuid(parsed[1])) {
    return { at: parsed[0], id: parsed[1] };
  }
  throw new AppError('BAD_REQUEST', 'cursor is not one this list returned (pass the nextCursor of a previous page)');
}

/** A timestamp column as a cursor's `at` (UTC, microseconds). */
export function cursorTime(column: string): RawBuilder<string> {
  return sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/**
 * The rows after `position` in the order (`at` descending, `id` ascending or descending): a
 * range on the timestamp an index serves, the ties sorted out by id.
 */
export function afterPosition(at: string, id: string, position: KeysetPosition, ids: 'asc' | 'desc'): RawBuilder<boolean> {
  const t = sql`${position.at}::timestamptz`;
  const idAfter = ids === 'asc' ? sql`${sql.ref(id)} > ${position.id}::uuid` : sql`${sql.ref(id)} < ${position.id}::uuid`;
  return sql<boolean>`(${sql.ref(at)} <= ${t} and (${sql.ref(at)} < ${t} or ${idAfter}))`;
}

/** How a list request pages: by offset (the contract's) or after a cursor; never both. */
export function pagePosition(input: { offset?: number; cursor?: string }): { offset: number; after?: KeysetPosition } {
  if (input.cursor === undefined) return { offset: input.offset ?? 0 };
  if ((input.offset ?? 0) !== 0) throw new AppError('BAD_REQUEST', 'Give either cursor or offset, not both');
  return { offset: 0, after: decodeCursor(input.cursor) };
}

/**
 * The page of `rows` (read with one row more than `limit`) and the cursor after its last row,
 * null when no row follows.
 */
export function cursorPage<T extends { cursor_at: string }>(rows: T[], limit: number, id: (row: T) => string): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1]!;
  return { rows: page, nextCursor: encodeCursor({ at: last.cursor_at, id: id(last) }) };
}
