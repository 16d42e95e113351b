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
 * Named statements a connection keeps at most. The marked statements have a handful of texts; were
 * one ever to vary with its input, the rest run unnamed rather than fill the server's memory.
 */
export const MAX_PREPARED_STATEMENTS = 64;

/**
 * The pg client the pools open: statements marked {@link prepared} go as named statements, which
 * the client parses on a connection once (it remembers the names it has prepared there).
 */
export class PreparingClient extends pg.Client {
  readonly preparedNames = new Set<string>();
}

const query = pg.Client.prototype.query;
PreparingClient.prototype.query = function (this: PreparingClient, ...args: unknown[]) {
  const [text, values, ...rest] = args;
  if (typeof text === 'string' && text.startsWith(MARK) && (values === undefined || Array.isArray(values))) {
    const name = statementName(text);
    if (this.preparedNames.has(name) || this.preparedNames.size < MAX_PREPARED_STATEMENTS) {
      this.preparedNames.add(name);
      return Reflect.apply(query, this, [{ name, text, values }, ...rest]) as unknown;
    }
  }
  return Reflect.apply(query, this, args) as unknown;
} as typeof query;
