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
//
// A batch's fate is its commit's: when COMMIT fails, every change of the
// batch is answered with the error (a StorageError) and nothing is
// published. A failed fsync is fatal: the kernel may have dropped what it
// was to write, so the room refuses every write from then on and tells
// onFatal's listeners, which stop the process (src/cli/serve.ts).
import type { Database } from 'better-sqlite3';
import { storageErrorOf, StorageError } from '../errors.js';

/** Changes one batch takes at most; the next change commits it at once. */
export const MAX_BATCH = 256;

interface Batch<C> {
  /** Batches are numbered from 1 in the order they open; one commits before the next opens. */
  number: number;
  changes: C[];
  /** Changes kept in the batch. */
  size: number;
  /** Changes run in the batch, refused ones included: each one's answer waits for the commit. */
  ran: number;
  settled: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

const DOING = 'committing this change';

export class GroupCommit<C> {
  private grouping = false;
  private batch: Batch<C> | null = null;
  private holds = 0;
  private readonly committedListeners = new Set<(size: number, seconds: number) => void>();
  private readonly fatalListeners = new Set<(error: StorageError) => void>();
  /** Batches opened so far. */
  private opened = 0;
  /** The last batch whose commit failed, and the error its changes were answered with. */
  private lastFailure: { batch: number; error: unknown } | null = null;
  /** Set once a commit failed fatally: every write is refused with it. */
  private broken: StorageError | null = null;
  /** How the last commit of a batch went (null before the first): what a readiness check reports. */
  lastCommit: { at: number; failure: string | null } | null = null;
  /**
   * The store seam of the fault-injection tests: called right before each
   * COMMIT of a batch; what it throws is what the commit threw.
   */
  beforeCommit: (() => void) | null = null;

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
    if (this.broken) throw this.broken;
    if (!this.grouping) {
      let outcome: { result: T; changes: C[] };
      try {
        outcome = body();
      } catch (error) {
        throw this.judged(error);
      }
      this.publish(outcome.changes);
      return outcome.result;
    }
    const batch = this.open();
    batch.ran += 1;
    let outcome: { result: T; changes: C[] };
    try {
      outcome = body();
    } catch (error) {
      // SQLite ended the whole transaction (a full disk, say): nothing of the batch is kept.
      if (!this.db.inTransaction) throw this.fail(batch, error);
      throw storageErrorOf(error, DOING); // refused inside its savepoint: the batch goes on
    }
    batch.changes.push(...outcome.changes);
    batch.size += 1;
    if (commitNow || batch.size >= MAX_BATCH) {
      const failed = this.commit();
      // What the caller does next (write the artifact) must find this change on disk.
      if (failed !== null && commitNow) throw failed;
    }
    return outcome.result;
  }

  /**
   * Runs `answer` (a request's work) and resolves once every batch open
   * while it ran is on disk (its changes', and what its reads may have
   * seen); rejects with the commit's error when one of them failed, whatever
   * the work answered. A request beside a failed batch is refused even if
   * its own changes committed in another: telling them apart meant tracking
   * every request through its awaits, a tenth of a read's time. A batch
   * fails on a full, busy or failing disk; the request may be retried.
   */
  async durably<T>(answer: () => Promise<T>): Promise<T> {
    const first = this.batch?.number ?? this.opened + 1;
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await answer() };
    } catch (error) {
      outcome = { error };
    }
    // Batches commit in turn: once the last one open is settled, so is every one before it.
    if (this.batch) await this.batch.settled.catch(() => {});
    if (this.lastFailure !== null && this.lastFailure.batch >= first) throw this.lastFailure.error;
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /** `listener(error)` once, when a commit fails fatally (a failed fsync). */
  onFatal(listener: (error: StorageError) => void): () => void {
    this.fatalListeners.add(listener);
    return () => this.fatalListeners.delete(listener);
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

  /**
   * `listener(size, seconds)` after each batch commits (size: the changes it
   * kept; seconds: how long its COMMIT took, SQLite's fsyncs included), before
   * its answers leave.
   */
  onCommitted(listener: (size: number, seconds: number) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /**
   * Commits the open batch now; its events are published, its answers may
   * leave. Returns the error every change of the batch was answered with
   * when the commit failed (nothing is published then), or null.
   */
  commit(): unknown {
    const batch = this.batch;
    if (!batch) return null;
    this.batch = null;
    const started = process.hrtime.bigint();
    try {
      this.beforeCommit?.();
      this.db.exec('COMMIT');
    } catch (error) {
      return this.fail(batch, error);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.lastCommit = { at: Date.now(), failure: null };
    for (const listener of this.committedListeners) listener(batch.size, seconds);
    batch.resolve();
    this.publish(batch.changes);
    return null;
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
    this.opened += 1;
    const batch: Batch<C> = { number: this.opened, changes: [], size: 0, ran: 0, settled, resolve, reject };
    this.batch = batch;
    // The end of this turn of the event loop: what arrived with it shares the commit.
    setImmediate(() => {
      if (this.batch === batch && this.holds === 0) this.commit();
    });
    return batch;
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
    const judged = this.judged(error);
    this.lastCommit = { at: Date.now(), failure: judged instanceof Error ? judged.message : String(judged) };
    this.lastFailure = { batch: batch.number, error: judged };
    batch.reject(judged);
    return judged;
  }

  /** The error a failed statement or commit is answered with; a fatal one breaks the room for writes. */
  private judged(error: unknown): unknown {
    const judged = storageErrorOf(error, DOING);
    if (judged instanceof StorageError && judged.fatal && !this.broken) {
      this.broken = judged;
      for (const listener of this.fatalListeners) listener(judged);
    }
    return judged;
  }
}
