// Handoffs counted by status: the sidecar's handoff_counts, which `ce status`
// and a metrics scrape read instead of counting every handoff. The writer
// keeps it: RoomStore adds up here what each handoff it inserts or updates
// moves, and writes the sums once a transaction, last before its COMMIT (a
// batch's changes share them). Triggers on handoffs kept it before
// (migration 9; dropped by 11): they ran on every insert and update of a
// handoff, and cost a durable write about a tenth of its CPU (BENCHMARKS.md).
//
// What a change moved is taken back with it (engine/room.ts change() runs
// each change through keptIfDone). Committed, the counts always agree with
// the handoffs. Inside the writer's open batch, roomStatus writes the sums
// before it reads them; a bare read of the table there sees them as they
// were last written.
import type { Database } from 'better-sqlite3';

/** A status's handoffs, more (or fewer) by n. */
export type CountMove = readonly [status: string, n: number];

export class HandoffCounts {
  private moved = new Map<string, number>();

  constructor(private readonly db: Database) {}

  /** A handoff now in `to`, no longer in `from` (null: a new handoff). */
  move(from: string | null, to: string): void {
    if (from === to) return;
    if (from !== null) this.moved.set(from, (this.moved.get(from) ?? 0) - 1);
    this.moved.set(to, (this.moved.get(to) ?? 0) + 1);
  }

  /**
   * Runs `change`. If it throws, what it moved is forgotten, as its savepoint
   * is rolled back; and every sum, when SQLite ended the whole transaction.
   */
  keptIfDone<T>(change: () => T): T {
    const before = new Map(this.moved);
    try {
      return change();
    } catch (error) {
      this.moved = this.db.inTransaction ? before : new Map();
      throw error;
    }
  }

  /** The sums that are not zero, forgotten here: the caller writes them. */
  take(): CountMove[] {
    const moves = [...this.moved].filter(([, n]) => n !== 0);
    this.moved.clear();
    return moves;
  }
}
