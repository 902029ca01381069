import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/** The artifact stays a plain markdown file; these are the only ways the room touches it. */
export const hashText = (text: string): string => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

export function readArtifactFile(file: string): string {
  return readFileSync(file, 'utf8');
}

/**
 * Replaces the file atomically: write a temp file beside it, fsync, rename
 * over the original, fsync the directory. A reader sees the old text or the
 * new, never a mix; after a crash the file is one of the two.
 */
export function writeArtifactFileAtomically(file: string, text: string): void {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temp, 'w', 0o644);
  try {
    writeSync(fd, text, null, 'utf8');
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
