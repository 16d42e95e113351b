import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';

const MARK = '/* kb:prepared */';

/**
 * Put first in a statement that runs on every request and whose text does not change with its
 * input (a search's): on PostgreSQL it then runs as a named prepared statement, parsed once per
 * connection instead of on every call (a hybrid search's statement is 9 KB of SQL). PostgreSQL
 * still chooses between a plan for the values and a generic one (plan_cache_mode auto). Harmless
 * elsewhere: it is a comment.
 */
export const prepared = sql.raw(`${MARK} `);

/** A statement's name: its text's digest, so that one name never stands for two texts. */
function statementName(text: string): string {
  return `kb_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
}

/**
 * The pg client the pools open: statements marked {@link prepared} go as named statements, which
 * the client parses on a connection once (it remembers the names it has prepared there).
 */
export class PreparingClient extends pg.Client {}

const query = pg.Client.prototype.query;
PreparingClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [text, values, ...rest] = args;
  if (typeof text === 'string' && text.startsWith(MARK) && (values === undefined || Array.isArray(values))) {
    return Reflect.apply(query, this, [{ name: statementName(text), text, values }, ...rest]) as unknown;
  }
  return Reflect.apply(query, this, args) as unknown;
} as typeof query;
