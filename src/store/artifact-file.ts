import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
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

/**
 * Replaces the file atomically: write a temp file beside it, fsync, rename
 * over the original, fsync the directory. A reader sees the old bytes or the
 * new, never a mix; after a crash the file is one of the two.
 */
export function writeArtifactFileAtomically(file: string, bytes: Uint8Array): void {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temp, 'w', 0o644);
  try {
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
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
