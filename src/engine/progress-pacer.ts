/** A report waiting for its task's next commit: applied inside that commit's transaction. */
export interface WaitingReport<Change> {
  apply(change: Change): void;
}

/**
 * Reports waiting for their task's next commit, one per task (the latest
 * replaces the one before). Kept in the room process only: a report that
 * waits is answered `committed: false`. A waiting report is committed when
 * its second is up (`defer`'s commit), or by the next change that alters its
 * task (room.ts, `change`'s `alters`), so the last report before a task
 * ends is kept. It stops waiting only once a commit has taken it (`settle`):
 * a change refused after applying it leaves it waiting.
 */
export class ProgressPacer<Change> {
  /**
   * When each task last had a report committed (the room's clock), oldest
   * first. A time an interval old decides nothing, so it is forgotten: a
   * room that runs for months holds only the last interval's tasks, not
   * every task that ever reported.
   */
  private readonly lastCommit = new Map<string, number>();
  private readonly waiting = new Map<string, { report: WaitingReport<Change>; timer: NodeJS.Timeout }>();

  /** `intervalMs`: the least time between two committed reports of a task. */
  constructor(private readonly intervalMs: number) {}

  /** When the task last had a report committed, if less than an interval before the last commit of any. */
  lastCommitOf(taskId: string): number | undefined {
    return this.lastCommit.get(taskId);
  }

  /** The task had a report committed `at`; the tasks whose last one was an interval or more before it are forgotten. */
  committed(taskId: string, at: number): void {
    this.lastCommit.delete(taskId); // set again below: the newest last
    for (const [oldest, then] of this.lastCommit) {
      if (at - then < this.intervalMs) break;
      this.lastCommit.delete(oldest);
    }
    this.lastCommit.set(taskId, at);
  }

  /** Tasks whose last committed report is remembered. */
  get remembered(): number {
    return this.lastCommit.size;
  }

  /** `report` waits `dueInMs`, then `commit` runs it, unless a newer report replaces it or a change takes it first. */
  defer(
    taskId: string,
    dueInMs: number,
    report: WaitingReport<Change>,
    commit: (report: WaitingReport<Change>) => void,
  ): void {
    this.settle(taskId);
    const timer = setTimeout(
      () => {
        const due = this.waitingFor(taskId);
        this.settle(taskId);
        if (due) commit(due);
      },
      Math.max(0, dueInMs),
    );
    timer.unref();
    this.waiting.set(taskId, { report, timer });
  }

  /** The task's waiting report, still waiting until `settle`. */
  waitingFor(taskId: string): WaitingReport<Change> | undefined {
    return this.waiting.get(taskId)?.report;
  }

  /** The task's waiting report is no longer waiting: a commit took it. */
  settle(taskId: string): void {
    const waiting = this.waiting.get(taskId);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.waiting.delete(taskId);
  }

  /** Every waiting report, no longer waiting: the room is closing. */
  takeAll(): WaitingReport<Change>[] {
    const reports = [...this.waiting.values()].map(({ report }) => report);
    for (const taskId of [...this.waiting.keys()]) this.settle(taskId);
    return reports;
  }
}
