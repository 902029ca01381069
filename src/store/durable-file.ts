// How the room and ce put a file on disk so that a crash or a power cut at
// any moment leaves the old file or the whole new one, and nothing else can
// read it while it is half written: a temp file beside it, created owner-only
// and exclusively (never through a symbolic link), written whole, given its
// mode, fsynced, then renamed over the target (or, for a file that must be
// new, linked to its name, which fails when anything is there), and the
// directory fsynced so the new name survives too. A file that means nothing
// once the machine restarts is written the same way without the two fsyncs
// (writeFileWhole): readers still never see it half written.
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

/** fsync a directory: a name made, changed or removed in it is on disk once this returns. */
export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface DurableWrite {
  /** The temp file's path, in the target's directory. */
  temp: string;
  /** Permission bits the file ends with (it is owner-only until then). */
  mode: number;
  /** Owner and group to give it, where this process may (a file written in place of another keeps its owner). */
  owner?: { uid: number; gid: number };
  /** 'replace': rename over whatever is there. 'new': the target must not exist (nor a link at its path). */
  as: 'replace' | 'new';
  /** A last look at the target once the new bytes are on disk, right before they take its place: what it throws, the write throws, the target untouched. */
  beforeRename?: () => void;
}

const CREATE_EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Puts `bytes` at `target`, whole, and on disk before it returns: a power cut leaves the old file or this one. */
export function writeFileDurably(target: string, bytes: Uint8Array, how: DurableWrite): void {
  putFile(target, bytes, how, true);
}

/**
 * Puts `bytes` at `target` as writeFileDurably does, but leaves them to the
 * kernel: a reader never sees the file half written, and a power cut may
 * lose it or leave it torn. For a file a power cut makes stale anyway (the
 * runtime file of a running room) or whose reader checks it (the code cache).
 */
export function writeFileWhole(target: string, bytes: Uint8Array, how: DurableWrite): void {
  putFile(target, bytes, how, false);
}

function putFile(target: string, bytes: Uint8Array, how: DurableWrite, sync: boolean): void {
  // A temp file of that name is one a write that died left behind (or a link planted there): removed, never followed.
  rmSync(how.temp, { force: true });
  const fd = openSync(how.temp, CREATE_EXCLUSIVE, 0o600);
  try {
    for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written);
    if (how.owner) {
      try {
        fchownSync(fd, how.owner.uid, how.owner.gid);
      } catch (error) {
        // Another user's file: this process may not give it away, and keeps it as its own.
        if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
      }
    }
    fchmodSync(fd, how.mode);
    if (sync) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(how.temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    how.beforeRename?.();
    if (how.as === 'replace') renameSync(how.temp, target);
    else {
      linkSync(how.temp, target);
      rmSync(how.temp);
    }
  } catch (error) {
    rmSync(how.temp, { force: true });
    throw error;
  }
  if (sync) fsyncDirectory(path.dirname(target));
}

/** Gives a file written by another (SQLite, a copy) its mode, and fsyncs it: its bytes are on disk. */
export function fsyncFile(file: string, mode: number): void {
  const fd = openSync(file, 'r+');
  try {
    fchmodSync(fd, mode);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
