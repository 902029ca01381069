import Database from 'better-sqlite3';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { DomainError } from '../engine/errors.js';
import { migrate } from './migrations.js';
import { acquireWriterLock, releaseWriterLock } from './writer-lock.js';

export const sidecarPath = (artifactPath: string): string => `${path.resolve(artifactPath)}.commonroom.db`;

export interface Sidecar {
  readonly db: Database.Database;
  readonly path: string;
  readonly writable: boolean;
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

export function openSidecar(artifactPath: string, options: OpenSidecarOptions): Sidecar {
  const file = sidecarPath(artifactPath);
  if ((options.mode === 'read' || options.create === false) && !existsSync(file)) {
    throw new DomainError('not_found', `no room for ${artifactPath}: ${file} does not exist`);
  }
  if (options.mode === 'read') {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return { db, path: file, writable: false, close: () => db.close() };
  }

  const db = new Database(file);
  // The real path: the same sidecar reached through a symlink is the same sidecar.
  const identity = realpathSync(file);
  try {
    if (heldHere.has(identity)) {
      throw new DomainError('locked', `the sidecar is already written by this process (pid ${process.pid})`);
    }
    db.pragma('journal_mode = WAL');
    // Acknowledged means on disk: every commit is fsynced, WAL included.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // The lock first: a refused writer must not migrate under the running one.
    acquireWriterLock(db, options.command ?? process.argv.slice(1).join(' '), options.now);
    try {
      migrate(db, options.now);
    } catch (error) {
      releaseWriterLock(db);
      throw error;
    }
  } catch (error) {
    db.close();
    throw error;
  }
  heldHere.add(identity);
  let open = true;
  return {
    db,
    path: file,
    writable: true,
    close() {
      if (!open) return;
      open = false;
      releaseWriterLock(db);
      heldHere.delete(identity);
      db.close();
    },
  };
}
