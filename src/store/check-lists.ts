// Migration 12: the CHECKs that name a column's allowed values as an IN list
// say the same as ORs of equalities. SQLite builds a temporary b-tree of an
// IN list's values each time it checks a row, 3 to 4 µs an insert or update
// of a handoff or a task (two of them a durable write); ORs cost nothing
// measurable (BENCHMARKS.md).
//
// A CHECK does not change how a row is stored, so the tables are not
// rebuilt: their definitions in sqlite_schema are rewritten in place, the
// way SQLite's documentation gives for changing a CHECK
// (https://sqlite.org/lang_altertable.html#otheralter), with the schema's
// version raised so that every connection reads them again. A definition
// that does not hold the exact text replaced is left as it is.
import type { Database } from 'better-sqlite3';

/** Each table's CHECK of one column, as migrations 1 and 2 wrote it. */
const LISTED: readonly (readonly [table: string, column: string, values: readonly string[]])[] = [
  ['handoffs', 'status', ['open', 'accepted', 'result_ready', 'approved', 'rejected', 'cancelled']],
  ['tasks', 'status', ['working', 'input_required', 'completed', 'failed', 'cancelled']],
  ['revisions', 'source', ['initial', 'proposal', 'external']],
  ['proposals', 'status', ['open', 'accepted', 'rejected', 'withdrawn']],
];

/** In table `table`'s definition, the text `was` becomes `now`. */
export interface DefinitionRewrite {
  table: string;
  was: string;
  now: string;
}

/**
 * Rewrites tables' definitions in sqlite_schema, then raises the schema's
 * version; run inside a transaction. Only for changes that leave how rows
 * are stored as it is (a CHECK).
 */
export function rewriteDefinitions(db: Database, rewrites: readonly DefinitionRewrite[]): void {
  const version = db.pragma('schema_version', { simple: true }) as number;
  // better-sqlite3 opens connections in SQLite's defensive mode, which forbids writing sqlite_schema.
  db.unsafeMode(true);
  db.pragma('writable_schema = ON');
  try {
    const rewrite = db.prepare(
      "UPDATE sqlite_schema SET sql = replace(sql, @was, @now) WHERE type = 'table' AND name = @table AND instr(sql, @was) > 0",
    );
    for (const change of rewrites) rewrite.run(change);
    db.pragma(`schema_version = ${version + 1}`);
  } finally {
    db.pragma('writable_schema = OFF');
    db.unsafeMode(false);
  }
}

/** The CHECKs of LISTED as IN lists (as written) and as ORs. */
export const CHECK_LISTS: readonly DefinitionRewrite[] = LISTED.map(([table, column, values]) => ({
  table,
  was: `CHECK (${column} IN (${values.map((value) => `'${value}'`).join(',')}))`,
  now: `CHECK (${values.map((value) => `${column} = '${value}'`).join(' OR ')})`,
}));

/** Migration 12: the CHECKs of LISTED rewritten as ORs. */
export const checksWithoutLists = (db: Database): void => rewriteDefinitions(db, CHECK_LISTS);
