// The finished task rows the expiry sweep (engine/handoffs/expire-tasks.ts)
// deletes one TTL after their last update, found through the index of when
// they fall due (migration 13). The index is named with INDEXED BY, so that
// a statement that could not use it fails to prepare rather than read every
// finished row. Prepared at the first sweep: only the writer sweeps, and it
// has migrated the sidecar; a sidecar opened for reading is not migrated,
// and one an earlier ce still writes has no such index yet.
import type { Database, Statement } from 'better-sqlite3';

/** A finished task's row: the WHERE of the index tasks_finished_due, word for word. */
const FINISHED = `(status = 'completed' OR status = 'failed' OR status = 'cancelled')`;
const FINISHED_DUE = `tasks INDEXED BY tasks_finished_due WHERE ${FINISHED} AND last_updated_at + ttl_ms <= @now`;

export class FinishedTasksDue {
  private prepared: { any: Statement; delete: Statement } | null = null;

  constructor(private readonly db: Database) {}

  private get statements() {
    return (this.prepared ??= {
      any: this.db.prepare(`SELECT EXISTS (SELECT 1 FROM ${FINISHED_DUE})`).pluck(),
      delete: this.db.prepare(`DELETE FROM ${FINISHED_DUE}`),
    });
  }

  /** Whether a finished row is one TTL past its last update at `now`. */
  any(now: number): boolean {
    return this.statements.any.get({ now }) === 1;
  }

  /** Deletes the finished rows one TTL past their last update; how many it deleted. */
  delete(now: number): number {
    return this.statements.delete.run({ now }).changes;
  }
}
