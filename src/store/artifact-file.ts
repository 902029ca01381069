import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeFileDurably } from './durable-file.js';

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
 * Replaces the file atomically (durable-file.ts): a reader sees the old bytes
 * or the new, never a mix; after a crash the file is one of the two. The new
 * file keeps the old one's permission bits and, where the process may, its
 * owner; a file that was not there gets `mode` (owner-only by default).
 */
export function writeArtifactFileAtomically(file: string, bytes: Uint8Array, mode = 0o600): void {
  let was: { mode: number; uid: number; gid: number } | null = null;
  try {
    was = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  writeFileDurably(file, bytes, {
    temp: path.join(path.dirname(file), tempName(file)),
    mode: was ? was.mode & 0o7777 : mode,
    ...(was ? { owner: { uid: was.uid, gid: was.gid } } : {}),
    as: 'replace',
  });
}
