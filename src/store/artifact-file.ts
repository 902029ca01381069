import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
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

/**
 * Where the artifact's bytes live: the file a symbolic link at its path
 * leads to, so that a write replaces that file and the link stays a link
 * (renamed over, it became a plain file that the link's target never saw).
 * A path with nothing there is itself.
 */
export function realTarget(file: string): string {
  try {
    return realpathSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return file;
    throw error;
  }
}

/** The file changed (or went) since the room last read it, while a write of the room's was on its way: the write did not replace it. */
export class ChangedMeanwhile extends Error {}

const tempName = (file: string): string => `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`;

/** Temp files of this artifact's writes, as tempName makes them. */
const isTempOf = (file: string, name: string): boolean =>
  name.startsWith(`.${path.basename(file)}.`) && /^\.\d+\.\d+\.tmp$/.test(name.slice(path.basename(file).length + 1));

/**
 * Removes temp files a write left behind when its process died before the
 * rename. Called by the writer, which holds the lock: no write of this
 * artifact is in progress anywhere. Returns the names removed.
 */
export function removeLeftoverTempFiles(artifact: string): string[] {
  const file = realTarget(artifact);
  const dir = path.dirname(file);
  const left = readdirSync(dir).filter((name) => isTempOf(file, name));
  for (const name of left) rmSync(path.join(dir, name), { force: true });
  return left;
}

/** The hash of the file's bytes now; null when it is gone. */
function hashOnDisk(file: string): string | null {
  try {
    return hashBytes(readFileSync(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Replaces the file atomically (durable-file.ts): a reader sees the old bytes
 * or the new, never a mix; after a crash the file is one of the two. The new
 * file keeps the old one's permission bits and, where the process may, its
 * owner; a file that was not there gets `mode` (owner-only by default).
 * `unlessChangedFrom`: the hash the file had when the room read it. Looked
 * at again once the new bytes are on disk, right before the rename: a file
 * edited meanwhile is not replaced (ChangedMeanwhile), so the edit is not
 * lost.
 */
export function writeArtifactFileAtomically(
  artifact: string,
  bytes: Uint8Array,
  { mode = 0o600, unlessChangedFrom }: { mode?: number; unlessChangedFrom?: string } = {},
): void {
  const file = realTarget(artifact);
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
    ...(unlessChangedFrom === undefined
      ? {}
      : {
          beforeRename: () => {
            if (hashOnDisk(file) !== unlessChangedFrom) throw new ChangedMeanwhile();
          },
        }),
  });
}
