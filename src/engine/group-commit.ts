// Group commit. With synchronous=FULL every commit pays an fsync; a served
// room lets the changes that arrive in one turn of the event loop share one.
//
//   change ──▶ savepoint in the open batch ──(end of the turn: setImmediate)──▶
//   COMMIT (one fsync) ──▶ events published ──▶ answers leave (settled())
//
// Each change runs in its own savepoint, so a refused change rolls back alone
// and its caller gets the same error as when it ran alone. Its result is
// computed at once, but an answer built on it must wait for `settled()`:
// acknowledged still means on disk. A room that does not group (ce without a
// server) commits every change on its own, as before.
import type { Database } from 'better-sqlite3';

/** Changes one batch takes at most; the next change commits it at once. */
export const MAX_BATCH = 256;

interface Batch<C> {
  changes: C[];
  /** Changes kept in the batch. */
  size: number;
  /** Changes run in the batch, refused ones included: each one's answer waits for the commit. */
  ran: number;
  settled: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

export class GroupCommit<C> {
  private grouping = false;
  private batch: Batch<C> | null = null;
  private holds = 0;
  private readonly committedListeners = new Set<(size: number) => void>();

  constructor(
    private readonly db: Database,
    /** Tells subscribers what a commit made durable; called right after the commit. */
    private readonly publish: (changes: C[]) => void,
  ) {}

  /** From now on changes share commits (the served room). */
  start(): void {
    this.grouping = true;
  }

  /** Commits what waits and goes back to one commit per change. */
  stop(): void {
    this.commit();
    this.grouping = false;
  }

  /**
   * Runs `body` (a better-sqlite3 transaction function) as one change. When
   * the room does not group, it is its own transaction and its changes are
   * published at once; grouped, it is a savepoint of the open batch.
   * `commitNow` commits that batch before returning (a write to the artifact
   * file must find its pending write on disk).
   */
  run<T>(body: () => { result: T; changes: C[] }, commitNow = false): T {
    if (!this.grouping) {
      const { result, changes } = body();
      this.publish(changes);
      return result;
    }
    const batch = this.open();
    batch.ran += 1;
    let outcome: { result: T; changes: C[] };
    try {
      outcome = body();
    } catch (error) {
      // SQLite ended the whole transaction (a full disk, say): nothing of the batch is kept.
      if (!this.db.inTransaction) this.fail(batch, error);
      throw error;
    }
    batch.changes.push(...outcome.changes);
    batch.size += 1;
    if (commitNow || batch.size >= MAX_BATCH) this.commit();
    return outcome.result;
  }

  /**
   * Resolves once every change made so far is on disk, or rejects when the
   * commit holding them failed. What an answer waits for before it leaves.
   */
  settled(): Promise<void> {
    return this.batch?.settled ?? Promise.resolve();
  }

  /** Resolves when no batch is open: what is read then is on disk. */
  async idle(): Promise<void> {
    while (this.batch) await this.batch.settled;
  }

  /** Changes run in the open batch, refused ones included, whose answers wait for its commit. */
  get waiting(): number {
    return this.batch?.ran ?? 0;
  }

  /**
   * Keeps the open batch from committing until the returned function is
   * called: tests use it to put several requests in one batch for sure.
   */
  hold(): () => void {
    this.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      if (this.holds === 0 && this.batch) setImmediate(() => this.commit());
    };
  }

  /** `listener(size)` after each batch commits (size: the changes it kept), before its answers leave. */
  onCommitted(listener: (size: number) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /** Commits the open batch now; its events are published, its answers may leave. */
  commit(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = null;
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      this.fail(batch, error);
      return;
    }
    for (const listener of this.committedListeners) listener(batch.size);
    batch.resolve();
    this.publish(batch.changes);
  }

  private open(): Batch<C> {
    if (this.batch) return this.batch;
    this.db.exec('BEGIN IMMEDIATE');
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const settled = new Promise<void>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    settled.catch(() => {}); // an answer that waits sees the failure; nobody else must
    const batch: Batch<C> = { changes: [], size: 0, ran: 0, settled, resolve, reject };
    this.batch = batch;
    // The end of this turn of the event loop: what arrived with it shares the commit.
    setImmediate(() => {
      if (this.batch === batch && this.holds === 0) this.commit();
    });
    return batch;
  }

  private fail(batch: Batch<C>, error: unknown): void {
    if (this.batch === batch) this.batch = null;
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    batch.reject(error);
  }
}
