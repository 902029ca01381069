// The sidecar's write-ahead log, made durable off the event loop. At
// synchronous=FULL SQLite fsyncs the log inside COMMIT, on the one thread
// that answers every request, so nothing else runs while the disk works. At
// NORMAL it writes the log and leaves out only that fsync: the log's header
// when it starts over, and every checkpoint, are still synced
// (https://sqlite.org/pragma.html#pragma_synchronous). A WalSync gives the
// fsync back, on libuv's thread pool, while the next batch runs: a commit is
// on disk once `synced()` resolves, as it was once COMMIT returned at FULL.
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

  private constructor(
    private readonly db: Database,
    /** One per fsync that may run at once (`free` holds those not in use). */
    private readonly descriptors: number[],
    /** syncNow's own, so that it never runs beside an fsync on the thread pool on the same descriptor. */
    private readonly nowDescriptor: number,
    private readonly sync: Fdatasync,
  ) {
    this.free = [...descriptors];
  }

  /** The sidecar's log synced by a WalSync from now on; null for a database with no log file of its own. */
  static open(db: Database, sync: Fdatasync = fdatasync): WalSync | null {
    if (db.memory || db.readonly || db.pragma('journal_mode', { simple: true }) !== 'wal') return null;
    const opened: number[] = [];
    try {
      for (let i = 0; i <= CONCURRENT_SYNCS; i++) opened.push(openSync(`${db.name}-wal`, 'r'));
    } catch {
      for (const fd of opened) closeSync(fd);
      return null; // no log yet: SQLite's own fsyncs at FULL, as before
    }
    db.pragma('synchronous = NORMAL');
    return new WalSync(db, opened.slice(1), opened[0]!, sync);
  }

  synced(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.runIfFree();
    });
  }

  syncNow(): void {
    fdatasyncSync(this.nowDescriptor);
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
