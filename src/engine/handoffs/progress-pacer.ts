import type { Change } from '../room.js';

/** A report waiting for its task's next commit: applied inside that commit's transaction. */
export interface WaitingReport {
  apply(change: Change): void;
}

/**
 * Reports waiting for their task's next commit, one per task (the latest
 * replaces the one before). Kept in the room process only: a report that
 * waits is answered `committed: false`. A waiting report is committed when
 * its second is up (`commit`), or within the transaction that changes its
 * task next (`take`), so the last report before a task ends is kept.
 */
export class ProgressPacer {
  /** When each task last had a report committed (the room's clock). */
  readonly lastCommit = new Map<string, number>();
  private readonly waiting = new Map<string, { report: WaitingReport; timer: NodeJS.Timeout }>();

  /** `report` waits `dueInMs`, then `commit` runs it, unless a newer report replaces it or its task takes it first. */
  defer(taskId: string, dueInMs: number, report: WaitingReport, commit: (report: WaitingReport) => void): void {
    this.take(taskId);
    const timer = setTimeout(
      () => {
        const due = this.take(taskId);
        if (due) commit(due);
      },
      Math.max(0, dueInMs),
    );
    timer.unref();
    this.waiting.set(taskId, { report, timer });
  }

  /** The task's waiting report, no longer waiting: the caller applies it in its own transaction. */
  take(taskId: string): WaitingReport | undefined {
    const waiting = this.waiting.get(taskId);
    if (!waiting) return undefined;
    clearTimeout(waiting.timer);
    this.waiting.delete(taskId);
    return waiting.report;
  }

  /** Every waiting report, taken: the room is closing. */
  takeAll(): WaitingReport[] {
    return [...this.waiting.keys()].map((taskId) => this.take(taskId)!);
  }
}
