// What the expiry sweep (engine/handoffs/expire-tasks.ts) asks of the tasks
// table: whether anything is due, and the finished rows' deletion. Finished
// rows are found through the index of when they fall due (migration 13),
// named with INDEXED BY, so that a statement that could not use it fails to
// prepare rather than read every finished row. Prepared at the first sweep:
// only the writer sweeps, and it has migrated the sidecar; a sidecar opened
// for reading is not migrated, and one an earlier ce still writes has no
// such index yet.
import type { Database, Statement } from 'better-sqlite3';

/** A task still at work: it expires one TTL after it was created. */
export const ACTIVE = `('working', 'input_required')`;
/** A finished task's row: the WHERE of the index tasks_finished_due, word for word. */
const FINISHED = `(status = 'completed' OR status = 'failed' OR status = 'cancelled')`;
const FINISHED_DUE = `tasks INDEXED BY tasks_finished_due WHERE ${FINISHED} AND last_updated_at + ttl_ms <= @now`;

export class TasksDue {
  private prepared: { any: Statement; deleteFinished: Statement } | null = null;

  constructor(private readonly db: Database) {}

  private get statements() {
    return (this.prepared ??= {
      any: this.db
        .prepare(
          `SELECT EXISTS (SELECT 1 FROM tasks WHERE status IN ${ACTIVE} AND created_at + ttl_ms <= @now)
            OR EXISTS (SELECT 1 FROM ${FINISHED_DUE}) AS due`,
        )
        .pluck(),
      deleteFinished: this.db.prepare(`DELETE FROM ${FINISHED_DUE}`),
    });
  }

  /** Whether the sweep has anything to do at `now`: a task to expire, or a finished row to delete. */
  any(now: number): boolean {
    return this.statements.any.get({ now }) === 1;
  }

  /** Deletes the finished rows one TTL past their last update; how many it deleted. */
  deleteFinished(now: number): number {
    return this.statements.deleteFinished.run({ now }).changes;
  }
}
