// Group commit. Every commit pays an fsync; a served room lets the changes
// that arrive in two turns of the event loop share one. The fsync runs on
// the event loop on a fast disk, and on the thread pool while the next
// batch fills on a slow one (store/wal-sync.ts):
//
//   change ──▶ savepoint in the open batch ──(end of the next turn: setImmediate twice)──▶
//   COMMIT ──▶ the log's fsync ──▶ events published ──▶ answers leave (settled())
//
// Each change runs in its own savepoint, so a refused change rolls back alone
// and its caller gets the same error as when it ran alone. Its result is
// computed at once, but an answer built on it must wait for `settled()`:
// acknowledged still means on disk. A room that does not group (ce without a
// server) commits every change on its own, synced by SQLite, as before.
//
// A batch's fate is its commit's: when COMMIT or its fsync fails, each of
// its changes is answered with the error (a StorageError; disk-verdicts.ts),
// and nothing is published. Batches settle in the order they opened.
import type { Database } from 'better-sqlite3';
import { storageErrorOf } from '../errors.js';
import { WalSync, type LogSync } from '../store/wal-sync.js';
import { afterNextTurn, beginBatch, changeTransaction, MAX_BATCH, openedBatch, type Batch } from './commit-batch.js';
import { DiskVerdicts } from './disk-verdicts.js';

export class GroupCommit<C> {
  private grouping = false;
  private batch: Batch<C> | null = null;
  /** Committed batches whose fsync has not ended, oldest first. */
  private unsynced: Batch<C>[] = [];
  /** The last batch opened: once it is settled, so is every one before it. */
  private newest: Batch<C> | null = null;
  /** Batches opened so far. */
  private opened = 0;
  private wal: LogSync | null = null; // null: SQLite syncs inside COMMIT
  private holds = 0;
  private readonly committedListeners = new Set<(size: number, seconds: number) => void>();
  /** What the disk said: the last commit (for readiness), fatal failures (onFatal, which stop the room). */
  readonly verdicts = new DiskVerdicts();
  /** The fault-injection tests' seam: called right before a batch's COMMIT; what it throws, COMMIT threw. */
  beforeCommit: (() => void) | null = null;

  /** Runs a change as its own transaction, or as a savepoint of the open batch (commit-batch.ts). */
  private readonly transact: <T>(body: () => T) => T;

  constructor(
    private readonly db: Database,
    /** Tells subscribers what a commit made durable; called once it is on disk. */
    private readonly publish: (changes: C[]) => void,
    /** Owed once a commit, not once a change (the handoff counts written, the event ring pruned): run last before COMMIT. */
    private readonly endOfBatch: () => void = () => {},
  ) {
    this.transact = changeTransaction(db);
  }

  /** From now on changes share commits, their fsync the room's own (the served room). */
  start(wal: LogSync | null = WalSync.open(this.db)): void {
    this.grouping = true;
    this.wal = wal;
  }

  /** Commits and syncs what waits, and goes back to one commit per change, synced by SQLite. */
  stop(): void {
    this.commit(true);
    this.grouping = false;
    this.wal?.close();
    this.wal = null;
  }

  /**
   * Runs `body` as one change: its own transaction, its changes published at
   * once; grouped, a savepoint of the open batch. `commitNow` commits that
   * batch, synced, before returning (a write to the artifact file must find
   * its pending write on disk).
   */
  run<T>(body: () => { result: T; changes: C[] }, commitNow = false): T {
    if (this.verdicts.broken) throw this.verdicts.broken;
    if (!this.grouping) {
      let outcome: { result: T; changes: C[] };
      try {
        outcome = this.transact(() => {
          const made = body();
          this.endOfBatch(); // a batch of one
          return made;
        });
      } catch (error) {
        throw this.verdicts.judged(error);
      }
      this.publish(outcome.changes);
      return outcome.result;
    }
    const batch = this.open();
    batch.ran += 1;
    let outcome: { result: T; changes: C[] };
    try {
      outcome = this.transact(body);
    } catch (error) {
      // SQLite ended the whole transaction (a full disk, say): nothing of the batch is kept.
      if (!this.db.inTransaction) throw this.fail(batch, error);
      throw storageErrorOf(error, 'committing this change'); // refused inside its savepoint: the batch goes on
    }
    batch.changes.push(...outcome.changes);
    batch.size += 1;
    if (commitNow || batch.size >= MAX_BATCH) {
      const failed = this.commit(commitNow);
      // What the caller does next (write the artifact) must find this change on disk.
      if (failed !== null && commitNow) throw failed;
    }
    return outcome.result;
  }

  /**
   * Runs `answer` (a request's work) and resolves once every batch open while
   * it ran is on disk (its changes', and what its reads may have seen);
   * rejects with the commit's error when one of them failed, whatever the
   * work answered, even if its own changes committed in another batch:
   * telling them apart meant tracking every request through its awaits, a
   * tenth of a read's time. A batch fails on a full, busy or failing disk;
   * the request may be retried.
   */
  async durably<T>(answer: () => Promise<T>): Promise<T> {
    const first = this.batch?.number ?? this.opened + 1;
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await answer() };
    } catch (error) {
      outcome = { error };
    }
    if (this.newest && !this.newest.done) await this.newest.settled.catch(() => {});
    const refusal = this.verdicts.refusalFor(first);
    if (refusal !== null) throw refusal;
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /** Resolves once every change made so far is on disk; rejects when the commit holding them failed. */
  settled(): Promise<void> {
    return this.newest && !this.newest.done ? this.newest.settled : Promise.resolve();
  }

  /** Resolves when every batch is settled: what is read then is on disk. */
  async idle(): Promise<void> {
    while (this.newest && !this.newest.done) await this.newest.settled;
  }

  /** Changes run in the open batch, refused ones included (their answers wait for its commit). */
  get waiting(): number {
    return this.batch?.ran ?? 0;
  }

  /** Keeps the open batch from committing until the returned function is called (tests: one batch for sure). */
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

  /** `listener(size, seconds)` once a batch is on disk, before its answers leave: changes kept, seconds since COMMIT. */
  onCommitted(listener: (size: number, seconds: number) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /**
   * Commits the open batch now; once its fsync ends, its events are published
   * and its answers may leave. `syncNow`: that fsync, and every one before
   * it, ends before this returns. The error its changes got, or null.
   */
  commit(syncNow = false): unknown {
    const batch = this.batch;
    if (batch) {
      this.batch = null;
      batch.started = process.hrtime.bigint();
      try {
        if (this.verdicts.broken) throw this.verdicts.broken;
        this.endOfBatch();
        this.beforeCommit?.();
        this.db.exec('COMMIT');
      } catch (error) {
        return this.fail(batch, error);
      }
      this.unsynced.push(batch);
    }
    if (this.wal === null) {
      this.settle(); // SQLite synced it inside COMMIT
    } else if (syncNow) {
      try {
        this.wal.syncNow();
      } catch {
        return this.syncFailed();
      }
      this.settle();
    } else if (batch) {
      this.wal.synced().then(
        () => this.settle(batch),
        () => this.syncFailed(),
      );
    }
    return null;
  }

  private open(): Batch<C> {
    if (this.batch) return this.batch;
    beginBatch(this.db, this.verdicts);
    const batch = openedBatch<C>(++this.opened);
    this.batch = batch;
    this.newest = batch;
    // What arrives until the end of the next turn of the event loop shares the commit (commit-batch.ts).
    afterNextTurn(() => {
      if (this.batch === batch && this.holds === 0) this.commit();
    });
    return batch;
  }

  /** The batches synced up to `last` (every one by default), oldest first: told, answered, published. */
  private settle(last?: Batch<C>): void {
    if (last?.done) return; // a synchronous sync got there first
    for (let batch = this.unsynced.shift(); batch; batch = this.unsynced.shift()) {
      batch.done = true;
      this.verdicts.committed();
      const seconds = Number(process.hrtime.bigint() - batch.started) / 1e9;
      for (const listener of this.committedListeners) listener(batch.size, seconds);
      batch.resolve();
      this.publish(batch.changes);
      if (batch === last) return;
    }
  }

  /** The log's fsync failed after COMMIT: every batch not yet on disk fails with it, and every answer from now on. */
  private syncFailed(): unknown {
    const error = this.verdicts.syncFailed();
    for (const batch of this.unsynced.splice(0)) this.reject(batch, error);
    return error;
  }

  /** Ends a batch whose commit failed: rolled back, every change answered with the error, which is returned. */
  private fail(batch: Batch<C>, error: unknown): unknown {
    if (this.batch === batch) this.batch = null;
    if (this.db.inTransaction) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // The disk refused the rollback too: the failure below says all there is.
      }
    }
    const judged = this.verdicts.judged(error);
    this.reject(batch, judged);
    return judged;
  }

  private reject(batch: Batch<C>, error: unknown): void {
    batch.done = true;
    this.verdicts.failed(batch.number, error);
    batch.reject(error);
  }
}
