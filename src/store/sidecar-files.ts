// The sidecar's files as files: where the sidecar is, the permission bits
// it and the files SQLite keeps beside it may have, making it, taking away
// one this process made and could not make a room of, and a refusal that
// says this user may not write there. No SQLite here: ce loads this module
// without the store (ce serve, before the room opens).
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { DomainError, folderGiven } from '../errors.js';
import { fsyncDirectory } from './durable-file.js';

const SIDECAR_SUFFIX = '.commonroom.db';

/**
 * Which file is at `file` now, as `device:inode`: a rename keeps it, a copy
 * or a new file renamed over the path does not; null when nothing is there.
 */
export function fileIdentity(file: string): string | null {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? `${stat.dev}:${stat.ino}` : null;
}

export const sidecarPath = (artifactPath: string): string => `${path.resolve(artifactPath)}${SIDECAR_SUFFIX}`;

/** A room is named by its markdown file: a sidecar or a folder given in its place is refused, saying what to give. */
export function requireArtifactPath(artifactPath: string): void {
  if (artifactPath.endsWith(SIDECAR_SUFFIX)) {
    const artifact = artifactPath.slice(0, -SIDECAR_SUFFIX.length);
    throw new DomainError(
      'invalid_input',
      `${artifactPath} is a room's sidecar, not its file: give the room's markdown file, ${artifact}`,
    );
  }
  if (statSync(artifactPath, { throwIfNoEntry: false })?.isDirectory()) throw folderGiven(artifactPath);
}

/** A file's permission bits as a data file has them (no execute bits); owner-only when it is not there. */
export function dataBits(file: string): number {
  try {
    return statSync(file).mode & 0o666;
  } catch {
    return 0o600;
  }
}

/**
 * The bits a sidecar may have: the artifact's data bits, and always its
 * owner's read and write, since the room writes its sidecar at every change
 * (a read-only artifact is still written by a rename of a new file onto it,
 * artifact-file.ts).
 */
export const artifactBits = (artifactPath: string): number => dataBits(artifactPath) | 0o600;

/** What a file just made may keep of `wanted`: the bits the umask left it (`made`), its owner's read and write kept. */
const narrowed = (made: number, wanted: number): number => (made & wanted & 0o777) | 0o600;

/**
 * A new, empty sidecar file with `mode` (SQLite reads an empty file as a new
 * database). False when another process made it first: the two then open
 * the same one, and the writer's lock decides.
 */
export function createOwnerOnly(file: string, mode: number): boolean {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') throw error;
    throw new DomainError(
      'forbidden',
      `cannot make the sidecar ${file}: this user may not write in ${path.dirname(file)} (${code}), where a room keeps its sidecar and writes its file; nothing was made`,
      { sidecar: file, reason: code },
    );
  }
  try {
    // The umask took what it takes (a service's UMask=0077 keeps the sidecar its owner's); the owner's read
    // and write stay, which the room needs at every change.
    fchmodSync(fd, narrowed(fstatSync(fd).mode, mode));
  } finally {
    closeSync(fd);
  }
  fsyncDirectory(path.dirname(file)); // its name survives a power cut before SQLite's first sync of it
  return true;
}

/**
 * The bits a copy of a room (a backup, a restore) is given: the file's own
 * (`wanted`), less what the umask took from the copy SQLite just made, its
 * owner's read and write kept.
 */
export const copyBits = (madeBySqlite: string, wanted: number): number => narrowed(statSync(madeBySqlite).mode, wanted);

/** The sidecar and the files SQLite keeps beside it. */
const sidecarFiles = (file: string): string[] => [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];

/**
 * Takes away a sidecar this process made and could not make a room of: a
 * failed start leaves the folder as it was, never a half-made sidecar that
 * every later command would take for a room. Only regular files go (a
 * directory at a -wal's path is someone else's).
 */
export function removeMadeSidecar(artifactPath: string): void {
  for (const part of sidecarFiles(sidecarPath(artifactPath))) {
    if (lstatSync(part, { throwIfNoEntry: false })?.isFile()) rmSync(part, { force: true });
  }
}

/**
 * SQLite refused to write a sidecar this user may not write (its mode, its
 * owner, or its folder's): said so, with what to do, not as the disk failing.
 * Null when this user may write both, and the refusal was the disk's.
 */
export function notWritableHere(file: string, error: unknown): DomainError | null {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^SQLITE_(READONLY|CANTOPEN)/.test(code)) return null;
  // The -wal and -shm too: SQLite makes them with the sidecar's mode, so a read-only sidecar leaves them
  // read-only, and they stay so once the sidecar is made writable again.
  for (const [what, target] of [
    ['the sidecar', file],
    ['its log', `${file}-wal`],
    ['its shared-memory file', `${file}-shm`],
    ['its folder', path.dirname(file)],
  ] as const) {
    const stat = statSync(target, { throwIfNoEntry: false });
    if (!stat) continue;
    try {
      accessSync(target, constants.W_OK);
    } catch {
      const mode = (stat.mode & 0o777).toString(8);
      const uid = process.getuid?.();
      // Another user's file: a chmod by this user cannot help (the service's user, say, where root ran ce init).
      const theirs = uid !== undefined && stat.uid !== uid;
      const said = theirs ? `mode ${mode}, owned by uid ${stat.uid}; this user is uid ${uid}` : `mode ${mode}`;
      const fix = theirs
        ? `run ce as the user it belongs to, or give it to this one (e.g. chown ${uid} ${target})`
        : `give this user write access (e.g. chmod u+w ${target})`;
      return new DomainError(
        'forbidden',
        `${what} ${target} is not writable by this user (${said}), and the room writes there at every change; ${fix} and try again; nothing was written`,
        { sidecar: file, reason: code },
      );
    }
  }
  return null;
}

/**
 * The sidecar holds everything the room knows, token hashes included: it and
 * its -wal and -shm never have permission bits the artifact lacks (its
 * owner's read and write aside: artifactBits). SQLite gives -wal and -shm
 * the database file's mode; bits are only ever taken away here, never added.
 */
export function keepWithinArtifactBits(file: string, artifactPath: string): void {
  // No file yet (a restore into a new place): the room writes it from the sidecar, with the sidecar's bits.
  if (!existsSync(artifactPath)) return;
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
