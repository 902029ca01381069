import Database from 'better-sqlite3';
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DomainError, isStorageError, storageErrorOf } from '../errors.js';
import { leaveCheckpointsToLitestream } from './litestream.js';
import { migrate } from './migrate.js';
import {
  artifactBits,
  createOwnerOnly,
  keepWithinArtifactBits,
  notWritableHere,
  removeMadeSidecar,
  sidecarPath,
} from './sidecar-files.js';
import { acquireWriterLock, releaseWriterLock } from './writer-lock.js';

export { requireArtifactPath, sidecarPath } from './sidecar-files.js';

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
  const tables = tablesOf(db);
  if (tables === null) throw notASidecar(file, 'it is not a SQLite database');
  if (tables.includes('schema_migrations')) return;
  const others = tables.filter((name) => name !== 'writer_lock');
  if (others.length > 0) {
    throw notASidecar(file, `it is a SQLite database with tables of its own (${others.slice(0, 3).join(', ')})`);
  }
  if (!writing) throw new DomainError('not_found', `no room for ${artifactPath}: ${file} holds none yet`);
}

/** The database's tables; null when the file is no SQLite database. */
function tablesOf(db: Database.Database): string[] | null {
  try {
    return db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_NOTADB') return null;
    throw error;
  }
}

/**
 * What a file holds, read without changing it (ce restore asks before it
 * copies one in): a room (its migrations' table), no room (an empty file, or
 * another program's database), or no SQLite database at all.
 */
export function sidecarContents(file: string): 'room' | 'no_room' | 'not_sqlite' {
  const db = new Database(file, { readonly: true, fileMustExist: true, ...sqliteAddon() });
  try {
    const tables = tablesOf(db);
    return tables === null ? 'not_sqlite' : tables.includes('schema_migrations') ? 'room' : 'no_room';
  } finally {
    db.close();
  }
}

/** Another process writes the sidecar: its writer's lock (locked), or SQLite's lock past the busy timeout (busy). */
const heldElsewhere = (judged: unknown): boolean =>
  (judged instanceof DomainError && judged.code === 'locked') || (isStorageError(judged) && judged.reason === 'busy');

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

  const making = !existsSync(file) && createOwnerOnly(file, artifactBits(artifactPath));
  let db: Database.Database;
  try {
    db = new Database(file, sqliteAddon());
  } catch (error) {
    if (making) removeMadeSidecar(artifactPath);
    throw notWritableHere(file, error) ?? storageErrorOf(error, `opening ${path.basename(file)} for writing`);
  }
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
    const judged = notWritableHere(file, error) ?? storageErrorOf(error, `opening ${path.basename(file)} for writing`);
    // Made here and refused: taken away, unless another process holds it (it opened what this one made).
    if (making && !heldElsewhere(judged)) removeMadeSidecar(artifactPath);
    throw judged;
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
