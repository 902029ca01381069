import { hostname } from 'node:os';
import type { Database } from 'better-sqlite3';
import { DomainError } from '../errors.js';
import { isThisProcess, stillRunning, thisProcess } from './process-identity.js';
import { fileIdentity } from './sidecar-files.js';

/**
 * One writer per sidecar, enforced by a row in the sidecar itself: taking it
 * is a write transaction, so two processes cannot both win. A holder that
 * died (even by SIGKILL) is noticed by its pid no longer running the same
 * process, and its lock is taken over. So is one that holds another file:
 * the lock also names the sidecar it was taken in (its device and inode),
 * and a copy of a served room's files (cp, rsync, a snapshot) carries the
 * row of a process that writes the original, not the copy.
 */
export interface LockHolder {
  pid: number;
  hostname: string;
  process_start: string | null;
  command: string;
  acquired_at: number;
  /** `device:inode` of the sidecar the lock was taken in; null in a lock taken before it was kept. */
  sidecar_id: string | null;
}

const COLUMNS = 'pid, hostname, process_start, command, acquired_at, sidecar_id';

/** The sidecar file's identity, which a rename keeps and a copy does not; null for a database with no file. */
const sidecarIdOf = (db: Database): string | null => (db.memory ? null : fileIdentity(db.name));

function isRunning(holder: LockHolder, db: Database): boolean {
  if (holder.sidecar_id !== null && holder.sidecar_id !== sidecarIdOf(db)) return false; // it came with a copy
  if (holder.hostname !== hostname()) return true; // cannot tell; assume it still writes
  return stillRunning(holder);
}

const self = (): Omit<LockHolder, 'acquired_at' | 'command' | 'sidecar_id'> => ({
  ...thisProcess(),
  hostname: hostname(),
});

const isSelf = (holder: LockHolder): boolean => holder.hostname === hostname() && isThisProcess(holder);

export function describeHolder(holder: LockHolder): string {
  return `process ${holder.pid} (${holder.command}) on ${holder.hostname} since ${new Date(holder.acquired_at).toISOString()}`;
}

const namesItsSidecar = (db: Database): boolean =>
  (db.pragma('table_info(writer_lock)') as { name: string }[]).some((column) => column.name === 'sidecar_id');

/** Who holds the lock, if anyone; a lock table made before it named its sidecar reads as naming none. */
function holderOf(db: Database): LockHolder | undefined {
  const columns = namesItsSidecar(db) ? COLUMNS : COLUMNS.replace('sidecar_id', 'NULL AS sidecar_id');
  return db.prepare(`SELECT ${columns} FROM writer_lock WHERE id = 1`).get() as LockHolder | undefined;
}

export function readLockHolder(db: Database): LockHolder | null {
  const holder = holderOf(db);
  return holder && isRunning(holder, db) ? holder : null;
}

export function acquireWriterLock(db: Database, command: string, now: number): void {
  db.exec(`CREATE TABLE IF NOT EXISTS writer_lock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    pid INTEGER NOT NULL,
    hostname TEXT NOT NULL,
    process_start TEXT,
    command TEXT NOT NULL,
    acquired_at INTEGER NOT NULL,
    sidecar_id TEXT
  )`);
  db.transaction(() => {
    const holder = holderOf(db);
    // This very process holding it means another handle here writes: refused too.
    if (holder && (isSelf(holder) || isRunning(holder, db))) {
      throw new DomainError('locked', `the sidecar is already written by ${describeHolder(holder)}`, {
        pid: holder.pid,
        command: holder.command,
      });
    }
    // A table made before the lock named its sidecar gets the column.
    if (!namesItsSidecar(db)) db.exec('ALTER TABLE writer_lock ADD COLUMN sidecar_id TEXT');
    const me = self();
    db.prepare(
      `INSERT INTO writer_lock (id, pid, hostname, process_start, command, acquired_at, sidecar_id)
       VALUES (1, @pid, @hostname, @process_start, @command, @acquired_at, @sidecar_id)
       ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname,
         process_start = excluded.process_start, command = excluded.command, acquired_at = excluded.acquired_at,
         sidecar_id = excluded.sidecar_id`,
    ).run({ ...me, command, acquired_at: now, sidecar_id: sidecarIdOf(db) });
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
