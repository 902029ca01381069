import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * The artifact stays a plain file; these are the only ways the room touches
 * it. The room reads and hashes bytes, never a decoded string, so a hash
 * and a size are always those of the bytes on disk.
 */
export const hashBytes = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

export function readArtifactBytes(file: string): Buffer {
  return readFileSync(file);
}

const tempName = (file: string): string => `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`;

/** Temp files of this artifact's writes, as tempName makes them. */
const isTempOf = (file: string, name: string): boolean =>
  name.startsWith(`.${path.basename(file)}.`) && /^\.\d+\.\d+\.tmp$/.test(name.slice(path.basename(file).length + 1));

/**
 * Removes temp files a write left behind when its process died before the
 * rename. Called by the writer, which holds the lock: no write of this
 * artifact is in progress anywhere. Returns the names removed.
 */
export function removeLeftoverTempFiles(file: string): string[] {
  const dir = path.dirname(file);
  const left = readdirSync(dir).filter((name) => isTempOf(file, name));
  for (const name of left) rmSync(path.join(dir, name), { force: true });
  return left;
}

/**
 * Replaces the file atomically: write a temp file beside it, fsync, rename
 * over the original, fsync the directory. A reader sees the old bytes or the
 * new, never a mix; after a crash the file is one of the two.
 */
export function writeArtifactFileAtomically(file: string, bytes: Uint8Array): void {
  const dir = path.dirname(file);
  const temp = path.join(dir, tempName(file));
  const fd = openSync(temp, 'w', 0o644);
  try {
    for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
