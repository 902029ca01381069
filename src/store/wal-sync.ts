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
// closes. Its descriptor is ours, read-only: fdatasync on it flushes what
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

interface Waiter {
  resolve(): void;
  reject(error: NodeJS.ErrnoException): void;
}

export class WalSync implements LogSync {
  /**
   * Those whose writes the next fsync covers. One fsync runs at a time and
   * the next serves all who asked meanwhile: Linux tells a failed write-back
   * to one fsync of a descriptor only, so a second one running beside it
   * could answer success for pages the disk lost.
   */
  private waiting: Waiter[] = [];
  private running = false;
  private closing = false;

  private constructor(
    private readonly db: Database,
    private readonly fd: number,
  ) {}

  /** The sidecar's log synced by a WalSync from now on; null for a database with no log file of its own. */
  static open(db: Database): WalSync | null {
    if (db.memory || db.readonly || db.pragma('journal_mode', { simple: true }) !== 'wal') return null;
    let fd: number;
    try {
      fd = openSync(`${db.name}-wal`, 'r');
    } catch {
      return null; // no log yet: SQLite's own fsyncs at FULL, as before
    }
    db.pragma('synchronous = NORMAL');
    return new WalSync(db, fd);
  }

  synced(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.running) this.run();
    });
  }

  syncNow(): void {
    fdatasyncSync(this.fd);
  }

  /** SQLite's own fsyncs again (FULL); the descriptor closes once no fsync runs on it. */
  close(): void {
    if (this.db.open) this.db.pragma('synchronous = FULL');
    this.closing = true;
    if (!this.running) closeSync(this.fd);
  }

  private run(): void {
    const covered = this.waiting;
    this.waiting = [];
    this.running = true;
    fdatasync(this.fd, (error) => {
      this.running = false;
      for (const waiter of covered) {
        if (error) waiter.reject(error);
        else waiter.resolve();
      }
      if (this.waiting.length > 0) this.run();
      else if (this.closing) closeSync(this.fd);
    });
  }
}
