// The write path's rows (a handoff, a task, an event) bound and read by
// position. Bound by name, better-sqlite3 looks every parameter up on the
// row object from C++; a row it reads it builds by making each column's name
// a JavaScript string again: 3 to 5 % of a write's time on the room's core
// under the bench's write load. The statements' SQL is written from these
// lists, so a row is bound and read in one order; they follow the tables'
// own column order (a test holds them to it), so a row read here has the
// shape a `SELECT *` row has.
import type { EventRow, HandoffRow, TaskRow } from './rows.js';

export const HANDOFF_COLUMNS = [
  'id',
  'task_id',
  'status',
  'summary',
  'constraints',
  'owner',
  'assignee',
  'artifacts_json',
  'idempotency_key',
  'correlation_id',
  'result_json',
  'error_json',
  'decision_json',
  'created_at',
  'updated_at',
  'accepted_at',
  'completed_at',
  'cancelled_at',
  'events_pruned_through',
  'progress_json',
] as const satisfies readonly (keyof HandoffRow)[];

/** What a handoff's update may change: everything but its id, its task, what it asked for and who asked. */
export const HANDOFF_UPDATED = [
  'status',
  'assignee',
  'result_json',
  'error_json',
  'decision_json',
  'updated_at',
  'accepted_at',
  'completed_at',
  'cancelled_at',
  'progress_json',
] as const satisfies readonly (keyof HandoffRow)[];

export const TASK_COLUMNS = [
  'id',
  'handoff_id',
  'owner',
  'assignee',
  'operation',
  'status',
  'status_message',
  'created_at',
  'last_updated_at',
  'ttl_ms',
  'poll_interval_ms',
  'correlation_id',
  'schema_version',
  'result_json',
  'error_json',
] as const satisfies readonly (keyof TaskRow)[];

export const TASK_UPDATED = [
  'assignee',
  'status',
  'status_message',
  'last_updated_at',
  'result_json',
  'error_json',
] as const satisfies readonly (keyof TaskRow)[];

/** An event's columns as inserted (SQLite gives the id). */
export const EVENT_INSERTED = [
  'type',
  'at',
  'actor',
  'handoff_id',
  'task_id',
  'payload_json',
] as const satisfies readonly (keyof EventRow)[];

/** `INSERT INTO table (columns) VALUES (?, …)`. */
export const insertSql = (table: string, columns: readonly string[]): string =>
  `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;

/** `UPDATE table SET column = ?, … WHERE id = ?`: bound with updatedValues. */
export const updateByIdSql = (table: string, columns: readonly string[]): string =>
  `UPDATE ${table} SET ${columns.map((column) => `${column} = ?`).join(', ')} WHERE id = ?`;

/** `SELECT columns FROM table WHERE id = ?`: prepared `.raw()`, read with rowOf. */
export const selectByIdSql = (table: string, columns: readonly string[]): string =>
  `SELECT ${columns.join(', ')} FROM ${table} WHERE id = ?`;

/** The row's values in the columns' order. */
export function valuesOf<R, K extends keyof R>(row: R, columns: readonly K[]): R[K][] {
  const values = new Array<R[K]>(columns.length);
  for (let i = 0; i < columns.length; i++) values[i] = row[columns[i]!];
  return values;
}

/** An update's values: the columns', then the row's id for its WHERE. */
export function updatedValues<R extends { id: string }, K extends keyof R>(row: R, columns: readonly K[]): unknown[] {
  const values: unknown[] = valuesOf(row, columns);
  values.push(row.id);
  return values;
}

/** A row from the values a `.raw()` statement read, in the columns' order. */
export function rowOf<R>(columns: readonly (keyof R)[], values: readonly unknown[]): R {
  const row = {} as R;
  for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i] as R[keyof R];
  return row;
}
