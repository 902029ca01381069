// The writer's task rows as committed, by id (RoomStore.getTask): tasks/get,
// what clients poll, reads one each time, and a read of SQLite outside a
// transaction was a sixth of its work. RoomStore keeps a row only from a
// read outside a transaction (inside one, it may yet be rolled back) and
// forgets it at any write of its task. Kept rows are frozen: every reader
// shares them, and the task's view made from one (engine/room.ts taskView).
// Bounded by count and by the text of results, errors and messages (a
// result may be up to a MiB): past either, it starts again.
import type { TaskRow } from './rows.js';

const ROWS_KEPT = 10_000;
/** Characters of the rows' texts kept at most; a row's view may hold as much again. */
const CHARS_KEPT = 4 * 1024 * 1024;

const charsOf = (row: TaskRow): number =>
  (row.result_json?.length ?? 0) + (row.error_json?.length ?? 0) + (row.status_message?.length ?? 0);

export class CommittedTasks {
  private readonly rows = new Map<string, Readonly<TaskRow>>();
  private chars = 0;

  get(id: string): Readonly<TaskRow> | undefined {
    return this.rows.get(id);
  }

  /** Keeps `row`, frozen, unless its texts alone pass the bound; returns it. */
  keep(row: TaskRow): Readonly<TaskRow> {
    const chars = charsOf(row);
    if (chars > CHARS_KEPT) return row;
    if (this.rows.size >= ROWS_KEPT || this.chars + chars > CHARS_KEPT) this.clear();
    this.rows.set(row.id, Object.freeze(row));
    this.chars += chars;
    return row;
  }

  forget(id: string): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    this.rows.delete(id);
    this.chars -= charsOf(row);
  }

  clear(): void {
    this.rows.clear();
    this.chars = 0;
  }
}
