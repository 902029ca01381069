// The sidecar's write-ahead log, made durable by the room itself. At
// synchronous=FULL SQLite fsyncs the log inside COMMIT; at NORMAL it writes
// the log and leaves out only that fsync: the log's header when it starts
// over, and every checkpoint, are still synced
// (https://sqlite.org/pragma.html#pragma_synchronous). A WalSync gives the
// fsync back: a commit is on disk once `synced()` resolves, as it was once
// COMMIT returned at FULL.
//
// Where it runs depends on the disk. On one that syncs in INLINE_SYNC_MS or
// less on average, the fsync runs right here, on the event loop (under the
// bench's load 97 % took under 1 ms): handing it to libuv's
// thread pool costs more than it waits (a pool thread woken, switches
// between threads, the loop woken after, all on the one core a room has),
// and while the loop waits, the requests that arrive pile up into the next
// batch, which then shares its commit among more changes. Side by side under
// the bench's 16 writers: batches of 9 to 10 changes instead of 6, a sixth
// less CPU a write (BENCHMARKS.md). On a slower disk the loop must not stand
// still that long: once the fsyncs here take more than INLINE_SYNC_MS on
// average, the next POOL_SYNCS_AFTER_SLOW run on the thread pool while the
// next batch fills, and then one tries here again.
//
// The log file is the same one for as long as the room holds its
// connection: SQLite starts it over from its beginning after a checkpoint
// (truncating it at most), and deletes it only when the last connection
// closes. Its descriptors are ours, read-only: fdatasync on one flushes what
// SQLite wrote through its own, as SQLite's own sync would.
import type { Database } from 'better-sqlite3';
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';

/** What group commit asks of the log's fsync (a WalSync; tests give their own). */
export interface LogSync {
  /** Resolves once everything written to the log before the call is on disk; rejects with the fsync's error. */
  synced(): Promise<void>;
  /** Syncs the log now, on this thread: what was written before the call is on disk once it returns, or it throws. */
  syncNow(): void;
  /** Back to SQLite's own fsyncs. */
  close(): void;
}

/** node's fdatasync, or what a test gives in its place. */
export type Fdatasync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;
/** fdatasync on this thread, returning the milliseconds it took (or throwing its error); a test's in its place. */
export type FdatasyncHere = (fd: number) => number;

// Timed with process.hrtime: the global `performance` loads node's perf_hooks modules at its first use, which
// would fall on a room's first durable write.
const fdatasyncHere: FdatasyncHere = (fd) => {
  const started = process.hrtime.bigint();
  fdatasyncSync(fd);
  return Number(process.hrtime.bigint() - started) / 1e6;
};

/**
 * fsyncs on the event loop that take longer than this on average send the
 * next ones to the thread pool: the longest the loop should stand still for
 * one, as long as a few requests' own work. A single slow one (1 to 5 ms, a
 * few in a hundred on the bench's disk) does not.
 */
export const INLINE_SYNC_MS = 2;
/** fsyncs that go to the thread pool once those on the event loop were slow, before one tries the loop again. */
export const POOL_SYNCS_AFTER_SLOW = 100;

/**
 * fsyncs of the log that may run at once: a batch committed while the last
 * one's fsync runs need not wait for it to end before its own begins. Side
 * by side under the bench's 16 writers (six rounds, medians): one at a time
 * 2,167 durable writes a second, two 2,455, three 2,546.
 */
export const CONCURRENT_SYNCS = 3;

interface Waiter {
  resolve(): void;
  reject(error: NodeJS.ErrnoException): void;
}

export class WalSync implements LogSync {
  /**
   * Those whose writes the next fsync covers. It starts as soon as a
   * descriptor is free and serves all who asked meanwhile.
   */
  private waiting: Waiter[] = [];
  /**
   * Descriptors with no fsync running on them. Linux tells a failed
   * write-back to each open descriptor once, at its next fsync: two fsyncs
   * running at once on one descriptor could let the second answer success
   * for pages the disk lost, so each runs on a descriptor of its own.
   */
  private readonly free: number[];
  private closing = false;
  private closed = false;
  /** fsyncs that still go to the thread pool; 0: the next one runs here. */
  private poolSyncs = 0;
  /** How long an fsync here takes, on average: each new one weighs an eighth. */
  private averageMs = 0;

  private constructor(
    private readonly db: Database,
    /** One per fsync that may run at once (`free` holds those not in use). */
    private readonly descriptors: number[],
    /** The fsyncs run here: their own, so that none runs beside an fsync on the thread pool on the same descriptor. */
    private readonly nowDescriptor: number,
    private readonly sync: Fdatasync,
    private readonly syncHere: FdatasyncHere,
  ) {
    this.free = [...descriptors];
  }

  /** The sidecar's log synced by a WalSync from now on; null for a database with no log file of its own. */
  static open(db: Database, sync: Fdatasync = fdatasync, syncHere: FdatasyncHere = fdatasyncHere): WalSync | null {
    if (db.memory || db.readonly || db.pragma('journal_mode', { simple: true }) !== 'wal') return null;
    const opened: number[] = [];
    try {
      for (let i = 0; i <= CONCURRENT_SYNCS; i++) opened.push(openSync(`${db.name}-wal`, 'r'));
    } catch {
      for (const fd of opened) closeSync(fd);
      return null; // no log yet: SQLite's own fsyncs at FULL, as before
    }
    db.pragma('synchronous = NORMAL');
    return new WalSync(db, opened.slice(1), opened[0]!, sync, syncHere);
  }

  synced(): Promise<void> {
    if (this.poolSyncs === 0) {
      try {
        this.syncNow();
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    this.poolSyncs -= 1;
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.runIfFree();
    });
  }

  syncNow(): void {
    this.averageMs += (this.syncHere(this.nowDescriptor) - this.averageMs) / 8;
    if (this.averageMs > INLINE_SYNC_MS) this.poolSyncs = POOL_SYNCS_AFTER_SLOW;
  }

  /** SQLite's own fsyncs again (FULL); the descriptors close once no fsync runs on them. */
  close(): void {
    if (this.db.open) this.db.pragma('synchronous = FULL');
    this.closing = true;
    this.closeIfIdle();
  }

  private runIfFree(): void {
    if (this.waiting.length === 0 || this.free.length === 0) return;
    const fd = this.free.pop()!;
    const covered = this.waiting;
    this.waiting = [];
    this.sync(fd, (error) => {
      this.free.push(fd);
      for (const waiter of covered) {
        if (error) waiter.reject(error);
        else waiter.resolve();
      }
      this.runIfFree();
      this.closeIfIdle();
    });
  }

  private closeIfIdle(): void {
    if (!this.closing || this.closed || this.free.length < this.descriptors.length) return;
    this.closed = true;
    for (const fd of [...this.descriptors, this.nowDescriptor]) closeSync(fd);
  }
}
