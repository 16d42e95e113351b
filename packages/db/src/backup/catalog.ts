import { sql, type Kysely } from 'kysely';

/** A table of the store as a backup holds it. */
export interface BackupTable {
  name: string;
  /** Its stored columns in order (generated columns are computed again on restore). */
  columns: string[];
  /** Each column's type as PostgreSQL prints it (`vector(1024)`, `timestamp with time zone`). */
  types: string[];
  /** Which of its rows a backup holds (an SQL condition), when not all of them. */
  where?: string;
}

/**
 * Rows no backup holds: secrets the store makes again when it first needs them. The visitor-token
 * signing secret stays with the store it was made in; a restored store makes a new one (visitor
 * tokens given before then are no longer accepted, and visitors pass the bot check again).
 */
const NOT_BACKED_UP: Readonly<Record<string, string>> = { store_meta: `key <> 'visitor_tokens'` };

/**
 * Statistics the store keeps with triggers as chunks and documents are written and removed: a
 * restore's own rows rebuild them (and a store's empty statistics do not make it "not empty").
 */
export const DERIVED_TABLES: ReadonlySet<string> = new Set(['corpus_stats', 'term_stats', 'namespace_stats']);

/** The migration tables belong to the code that opens a store, not to its data; derived ones follow from it. */
const NOT_DATA = new Set(['kysely_migration', 'kysely_migration_lock', ...DERIVED_TABLES]);

// Catalog queries read any schema; their rows are typed here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * Every table of the store's schema, read from the catalog (so a table a later migration adds is
 * in every backup without a word here), parents before the tables that reference them, otherwise
 * by name: the order a restore loads them in.
 */
export async function readBackupTables(db: AnyDb): Promise<BackupTable[]> {
  const columns = await sql<{ table: string; column: string; type: string }>`
    select c.relname as table, a.attname as column, format_type(a.atttypid, a.atttypmod) as type
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid
    where n.nspname = current_schema() and c.relkind in ('r', 'p')
      and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
    order by c.relname, a.attnum`.execute(db);
  const references = await sql<{ child: string; parent: string }>`
    select child.relname as child, parent.relname as parent
    from pg_constraint k
    join pg_class child on child.oid = k.conrelid
    join pg_class parent on parent.oid = k.confrelid
    join pg_namespace n on n.oid = child.relnamespace
    where k.contype = 'f' and n.nspname = current_schema()`.execute(db);

  const tables = new Map<string, BackupTable>();
  for (const row of columns.rows) {
    if (NOT_DATA.has(row.table)) continue;
    let table = tables.get(row.table);
    if (!table) {
      table = { name: row.table, columns: [], types: [] };
      if (NOT_BACKED_UP[row.table] !== undefined) table.where = NOT_BACKED_UP[row.table];
      tables.set(row.table, table);
    }
    table.columns.push(row.column);
    table.types.push(row.type);
  }
  const parents = new Map<string, Set<string>>([...tables.keys()].map((name) => [name, new Set<string>()]));
  for (const { child, parent } of references.rows) {
    if (child !== parent && parents.has(child) && tables.has(parent)) parents.get(child)!.add(parent);
  }

  const ordered: BackupTable[] = [];
  const placed = new Set<string>();
  const names = [...tables.keys()].sort();
  while (ordered.length < names.length) {
    const next = names.find((name) => !placed.has(name) && [...parents.get(name)!].every((parent) => placed.has(parent)));
    if (next === undefined) throw new Error(`The store's tables reference each other in a cycle: ${names.filter((n) => !placed.has(n)).join(', ')}`);
    placed.add(next);
    ordered.push(tables.get(next)!);
  }
  return ordered;
}

/** The migrations applied to the store, in order: the schema a backup's rows fit. */
export async function readMigrations(db: AnyDb): Promise<string[]> {
  const result = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return result.rows.map((row) => row.name);
}

/** The store's embedding settings (store_meta), as a backup records them. */
export async function readEmbeddingSettings(db: AnyDb): Promise<{ model: string | null; dimension: number }> {
  const result = await sql<{ value: string }>`select value::text as value from store_meta where key = 'embedding'`.execute(db);
  const value = JSON.parse(result.rows[0]?.value ?? '{}') as { model?: string | null; dimension?: number };
  const column = await sql<{ dimension: number }>`
    select atttypmod as dimension from pg_attribute where attrelid = 'chunks'::regclass and attname = 'embedding'`.execute(db);
  return { model: value.model ?? null, dimension: Number(column.rows[0]?.dimension ?? value.dimension) };
}

/** An index a restore sets aside while it loads, and builds again once the rows are in. */
export interface SecondaryIndex {
  name: string;
  table: string;
  definition: string;
  comment: string | null;
}

/**
 * Indexes that no constraint stands on (not primary keys, unique or exclusion constraints):
 * building them once over loaded rows is faster than updating them row by row, as pg_restore does.
 */
export async function readSecondaryIndexes(db: AnyDb): Promise<SecondaryIndex[]> {
  const result = await sql<SecondaryIndex>`
    select ic.relname as name, t.relname as table, pg_get_indexdef(i.indexrelid) as definition,
           obj_description(i.indexrelid, 'pg_class') as comment
    from pg_index i
    join pg_class ic on ic.oid = i.indexrelid
    join pg_class t on t.oid = i.indrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = current_schema() and not i.indisprimary and not i.indisunique
      and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)
    order by ic.relname`.execute(db);
  return result.rows.filter((index) => !NOT_DATA.has(index.table));
}
