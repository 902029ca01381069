import Database from 'better-sqlite3';
import { chmodSync, closeSync, constants, existsSync, openSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DomainError, storageErrorOf } from '../errors.js';
import { fsyncDirectory } from './durable-file.js';
import { leaveCheckpointsToLitestream } from './litestream.js';
import { migrate } from './migrate.js';
import { acquireWriterLock, releaseWriterLock } from './writer-lock.js';

export const sidecarPath = (artifactPath: string): string => `${path.resolve(artifactPath)}.commonroom.db`;

export interface Sidecar {
  readonly db: Database.Database;
  readonly path: string;
  readonly writable: boolean;
  /** The schema migrations this opening applied (all of them for a new sidecar; none when it was current). */
  readonly migrated: readonly number[];
  /** Litestream replicates it, and checkpoints are left to it (litestream.ts). */
  readonly litestream: boolean;
  close(): void;
}

/** Sidecars this process holds the writer's lock for: one writer per sidecar, in-process too. */
const heldHere = new Set<string>();

export interface OpenSidecarOptions {
  /** 'write' migrates and takes the writer's lock; 'read' opens an existing sidecar read-only. */
  mode: 'write' | 'read';
  /** With 'write': make the sidecar when there is none (default). False refuses instead. */
  create?: boolean;
  /** Named in the lock so a refused writer can tell who holds it. */
  command?: string;
  now: number;
}

/** The artifact's permission bits, as a data file may have them (no execute bits); owner-only without one. */
function artifactBits(artifactPath: string): number {
  try {
    return statSync(artifactPath).mode & 0o666;
  } catch {
    return 0o600;
  }
}

/** A new, empty sidecar file with `mode` (SQLite reads an empty file as a new database). */
function createOwnerOnly(file: string, mode: number): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  closeSync(fd);
  chmodSync(file, mode); // the umask may have taken bits the file's own have
  fsyncDirectory(path.dirname(file)); // its name survives a power cut before SQLite's first sync of it
}

/**
 * The sidecar holds everything the room knows, token hashes included: it and
 * its -wal and -shm never have permission bits the artifact lacks. SQLite
 * gives -wal and -shm the database file's mode; bits are only ever taken
 * away here, never added.
 */
function keepWithinArtifactBits(file: string, artifactPath: string): void {
  const allowed = artifactBits(artifactPath);
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & ~allowed) !== 0) chmodSync(path, mode & allowed);
  }
}

let addon: { nativeBinding?: string } | undefined;
/**
 * SQLite's native addon, where better-sqlite3's install puts it, named to each
 * Database: better-sqlite3 would otherwise search a dozen places for it from
 * its own file, and in ce serve's bundle (scripts/build.js) its files are not
 * where that search looks. An addon that is not there (built by hand
 * elsewhere) is left to better-sqlite3's search, which only `ce` outside
 * `ce serve` can make.
 */
function sqliteAddon(): { nativeBinding?: string } {
  if (addon) return addon;
  try {
    addon = {
      nativeBinding: createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node'),
    };
  } catch {
    addon = {};
  }
  return addon;
}

/**
 * Refuses a file at the sidecar's path that is not a room's sidecar, before
 * anything is written to it: one that is no SQLite database, or a database of
 * another program's (tables, and no `schema_migrations`). Said as a file in the
 * way, not as the disk failing or a bug. A new sidecar is empty, and one whose
 * first opening stopped before its migrations holds the writer's lock alone:
 * a writer goes on with either, a reader finds no room in them.
 */
function refuseOtherFiles(db: Database.Database, file: string, artifactPath: string, writing: boolean): void {
  let tables: string[];
  try {
    tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'SQLITE_NOTADB') throw error;
    throw notASidecar(file, 'it is not a SQLite database');
  }
  if (tables.includes('schema_migrations')) return;
  const others = tables.filter((name) => name !== 'writer_lock');
  if (others.length > 0) {
    throw notASidecar(file, `it is a SQLite database with tables of its own (${others.slice(0, 3).join(', ')})`);
  }
  if (!writing) throw new DomainError('not_found', `no room for ${artifactPath}: ${file} holds none yet`);
}

const notASidecar = (file: string, why: string): DomainError =>
  new DomainError(
    'conflict',
    `${file} is not a Common Room sidecar: ${why}. Nothing was written to it; move it aside, since a room keeps its sidecar at that path`,
    { sidecar: file },
  );

export function openSidecar(artifactPath: string, options: OpenSidecarOptions): Sidecar {
  const file = sidecarPath(artifactPath);
  if ((options.mode === 'read' || options.create === false) && !existsSync(file)) {
    throw new DomainError('not_found', `no room for ${artifactPath}: ${file} does not exist`);
  }
  if (options.mode === 'read') {
    const db = new Database(file, { readonly: true, fileMustExist: true, ...sqliteAddon() });
    try {
      db.pragma('busy_timeout = 5000');
      refuseOtherFiles(db, file, artifactPath, false);
    } catch (error) {
      db.close();
      throw error;
    }
    return { db, path: file, writable: false, migrated: [], litestream: false, close: () => db.close() };
  }

  if (!existsSync(file)) createOwnerOnly(file, artifactBits(artifactPath));
  const db = new Database(file, sqliteAddon());
  // The real path: the same sidecar reached through a symlink is the same sidecar.
  const identity = realpathSync(file);
  let migrated: number[] = [];
  let litestream = false;
  try {
    if (heldHere.has(identity)) {
      throw new DomainError('locked', `the sidecar is already written by this process (pid ${process.pid})`);
    }
    db.pragma('busy_timeout = 5000');
    refuseOtherFiles(db, file, artifactPath, true);
    db.pragma('journal_mode = WAL');
    keepWithinArtifactBits(file, artifactPath);
    db.pragma('foreign_keys = ON');
    // Each change of a grouped batch is a savepoint, whose journal of the pages it changed SQLite spills to a
    // temp file past 64 KiB: kept in memory instead (a batch is at most MAX_BATCH changes), no file written.
    db.pragma('temp_store = MEMORY');
    // The lock first: a refused writer must not migrate under the running one. Taken without an fsync (1 to
    // 2 ms of a start): it names this process, which a power cut ends with it, and the next commit syncs it.
    db.pragma('synchronous = NORMAL');
    acquireWriterLock(db, options.command ?? process.argv.slice(1).join(' '), options.now);
    // Acknowledged means on disk: every commit from here on is fsynced, WAL included.
    db.pragma('synchronous = FULL');
    try {
      migrated = migrate(db, options.now);
    } catch (error) {
      releaseWriterLock(db);
      throw error;
    }
    litestream = leaveCheckpointsToLitestream(db);
  } catch (error) {
    db.close();
    // The disk refused the lock or a migration: said as the room's storage failing, not as a bug.
    throw storageErrorOf(error, `opening ${path.basename(file)} for writing`);
  }
  heldHere.add(identity);
  let open = true;
  return {
    db,
    path: file,
    writable: true,
    migrated,
    litestream,
    close() {
      if (!open) return;
      open = false;
      releaseWriterLock(db);
      heldHere.delete(identity);
      db.close();
    },
  };
}
