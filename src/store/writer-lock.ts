import { hostname } from 'node:os';
import type { Database } from 'better-sqlite3';
import { DomainError } from '../errors.js';
import { isThisProcess, stillRunning, thisProcess } from './process-identity.js';

/**
 * One writer per sidecar, enforced by a row in the sidecar itself: taking it
 * is a write transaction, so two processes cannot both win. A holder that
 * died (even by SIGKILL) is noticed by its pid no longer running the same
 * process, and its lock is taken over.
 */
export interface LockHolder {
  pid: number;
  hostname: string;
  process_start: string | null;
  command: string;
  acquired_at: number;
}

function isRunning(holder: LockHolder): boolean {
  if (holder.hostname !== hostname()) return true; // cannot tell; assume it still writes
  return stillRunning(holder);
}

const self = (): Omit<LockHolder, 'acquired_at' | 'command'> => ({ ...thisProcess(), hostname: hostname() });

const isSelf = (holder: LockHolder): boolean => holder.hostname === hostname() && isThisProcess(holder);

export function describeHolder(holder: LockHolder): string {
  return `process ${holder.pid} (${holder.command}) on ${holder.hostname} since ${new Date(holder.acquired_at).toISOString()}`;
}

export function readLockHolder(db: Database): LockHolder | null {
  const holder = db
    .prepare('SELECT pid, hostname, process_start, command, acquired_at FROM writer_lock WHERE id = 1')
    .get() as LockHolder | undefined;
  return holder && isRunning(holder) ? holder : null;
}

export function acquireWriterLock(db: Database, command: string, now: number): void {
  db.exec(`CREATE TABLE IF NOT EXISTS writer_lock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    pid INTEGER NOT NULL,
    hostname TEXT NOT NULL,
    process_start TEXT,
    command TEXT NOT NULL,
    acquired_at INTEGER NOT NULL
  )`);
  db.transaction(() => {
    const holder = db
      .prepare('SELECT pid, hostname, process_start, command, acquired_at FROM writer_lock WHERE id = 1')
      .get() as LockHolder | undefined;
    // This very process holding it means another handle here writes: refused too.
    if (holder && (isSelf(holder) || isRunning(holder))) {
      throw new DomainError('locked', `the sidecar is already written by ${describeHolder(holder)}`, {
        pid: holder.pid,
        command: holder.command,
      });
    }
    const me = self();
    db.prepare(
      `INSERT INTO writer_lock (id, pid, hostname, process_start, command, acquired_at)
       VALUES (1, @pid, @hostname, @process_start, @command, @acquired_at)
       ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname,
         process_start = excluded.process_start, command = excluded.command, acquired_at = excluded.acquired_at`,
    ).run({ ...me, command, acquired_at: now });
  }).immediate();
}

export function releaseWriterLock(db: Database): void {
  const me = self();
  db.prepare('DELETE FROM writer_lock WHERE id = 1 AND pid = ? AND hostname = ? AND process_start IS ?').run(
    me.pid,
    me.hostname,
    me.process_start,
  );
}
