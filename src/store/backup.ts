// Backups of a room while it runs, and putting one back. A backup is a room
// of its own: the artifact and its sidecar beside it, so it can be opened,
// served or restored as it is. Every file either writes is whole and
// fsynced, its name too, before success is reported (durable-file.ts), and
// has no permission bits the room's artifact lacks.
import { existsSync, linkSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DomainError } from '../errors.js';
import { hashBytes } from './artifact-file.js';
import { carryRevocations } from './carry-revocations.js';
import { fsyncDirectory, fsyncFile, writeFileDurably } from './durable-file.js';
import { forgetLitestream } from './litestream.js';
import { migrate } from './migrate.js';
import { artifactBits, copyBits, dataBits, sidecarPath } from './sidecar-files.js';

/** Enough pages for any sidecar: the whole copy is one step, one consistent snapshot. */
const ALL_PAGES = 0x7fffffff;

export interface BackupReport {
  artifact: string;
  sidecar: string;
  /** The revision the copied artifact is: the sidecar's latest, as of the snapshot. */
  revision: number;
  /** The room's file holds an edit no room has recorded (or is gone): the backup's file does not have it. */
  unrecorded_edit: boolean;
}

/** Where a backup goes: DEST itself, or DEST/<the artifact's name> when DEST is a directory. */
export function backupTarget(artifactPath: string, dest: string): string {
  const isDirectory = existsSync(dest) && statSync(dest).isDirectory();
  return path.resolve(isDirectory ? path.join(dest, path.basename(artifactPath)) : dest);
}

interface LatestRevision {
  number: number;
  hash: string;
  bytes: Buffer;
}

function latestRevision(db: Database.Database): LatestRevision | undefined {
  const row = db.prepare('SELECT number, hash, content FROM revisions ORDER BY number DESC LIMIT 1').get() as
    { number: number; hash: string; content: string | Buffer } | undefined;
  if (!row) return undefined;
  return {
    number: row.number,
    hash: row.hash,
    bytes: typeof row.content === 'string' ? Buffer.from(row.content) : row.content,
  };
}

/**
 * Copies the sidecar with SQLite's online backup API (a read-only
 * connection, so a running room is neither stopped nor blocked: WAL lets it
 * write on) and writes the artifact beside the copy as the copy's latest
 * revision says, so the two agree whatever the live file is doing. The
 * copy keeps no writer's lock of the room it came from. Neither file is
 * replaced: a backup never overwrites one.
 */
export async function backupRoom(artifactPath: string, dest: string): Promise<BackupReport> {
  const source = sidecarPath(artifactPath);
  if (!existsSync(source)) throw new DomainError('not_found', `no room for ${artifactPath}: ${source} does not exist`);
  const artifact = backupTarget(artifactPath, dest);
  const sidecar = sidecarPath(artifact);
  if (path.resolve(artifactPath) === artifact)
    throw new DomainError('invalid_input', 'a backup cannot replace its own room');
  for (const file of [artifact, sidecar]) {
    if (existsSync(file)) throw new DomainError('conflict', `${file} exists; a backup never overwrites a file`);
  }
  if (!existsSync(path.dirname(artifact))) {
    throw new DomainError('not_found', `the directory ${path.dirname(artifact)} does not exist`);
  }
  const mode = dataBits(artifactPath);
  const partial = `${sidecar}.partial`;
  rmSync(partial, { force: true });
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(partial, { progress: () => ALL_PAGES });
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
  try {
    const copy = new Database(partial);
    let revision: LatestRevision | undefined;
    try {
      copy.prepare('DELETE FROM writer_lock').run();
      revision = latestRevision(copy);
      copy.pragma('journal_mode = DELETE'); // one file, nothing beside it
    } finally {
      copy.close();
    }
    if (!revision) throw new DomainError('conflict', 'the room has no revision yet; there is nothing to back up');
    const sidecarMode = copyBits(partial, artifactBits(artifactPath)); // no bits the room's lack, nor the umask's
    fsyncFile(partial, sidecarMode);
    // The sidecar first: a crash before the file leaves a sidecar whose name says the backup is not whole.
    writeFileDurably(artifact, revision.bytes, {
      temp: `${artifact}.partial`,
      mode: mode & (sidecarMode | 0o700), // its owner's bits its own, the others' no more than the sidecar's
      as: 'new',
    });
    renameIntoFreeName(partial, sidecar);
    const unrecorded = !existsSync(artifactPath) || hashBytes(readFileSync(artifactPath)) !== revision.hash;
    return { artifact, sidecar, revision: revision.number, unrecorded_edit: unrecorded };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/** Gives `from` the name `to`, which must not exist (a link never replaces nor follows one), and fsyncs the directory. */
function renameIntoFreeName(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new DomainError('conflict', `${to} exists; a backup never overwrites a file`);
    }
    throw error;
  } finally {
    rmSync(from, { force: true });
  }
  fsyncDirectory(path.dirname(to));
}

/** SQLite's integrity check; a file that is no SQLite database at all is said to be so. */
function integrityOf(db: Database.Database, file: string): { integrity_check: string }[] {
  try {
    return db.pragma('integrity_check') as { integrity_check: string }[];
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_NOTADB') {
      throw new DomainError('invalid_input', `${file} is not a SQLite database; nothing was restored`);
    }
    throw error;
  }
}

/** What a room is restored from: a backup (its file, its sidecar beside it), or a sidecar alone (a replica's). */
export type RestoreSource = { artifact: string } | { sidecar: string };

/**
 * Puts a backup (its artifact and sidecar) in place of a room's, once the
 * backup's sidecar passes an integrity check and its file is what the
 * sidecar last recorded; or a sidecar alone (a replica Litestream brought
 * back, say), whose latest revision's text becomes the file. The caller has made sure no room process writes the
 * target (src/cli/backup.ts takes the writer's lock first). What was there
 * is kept beside it, copied under names ending in `suffix`, never
 * overwritten. Returns the kept files, and how many sessions revoked in the
 * sidecar replaced were live in the backup and are revoked again
 * (carry-revocations.ts); null when no sidecar was replaced.
 *
 * A crash at any point leaves the room wholly as it was or wholly restored:
 * the restored sidecar, marked with the revision the file is to be
 * (file_rewrite), replaces the old one in one rename, which is the point of
 * no return. The file follows when the room is next opened for writing
 * (syncArtifact writes it from that revision): ce restore does so at once,
 * and after a crash the next writer does. Never a mix, and never a file
 * half written.
 */
export async function restoreRoom(
  from: RestoreSource,
  artifactPath: string,
  suffix: string,
  now: number,
): Promise<{ kept: string[]; revokedAgain: number | null }> {
  const backupArtifact = 'artifact' in from ? from.artifact : null;
  const backupSidecar = 'artifact' in from ? sidecarPath(from.artifact) : from.sidecar;
  const source = backupArtifact ?? backupSidecar;
  const needed = backupArtifact === null ? [backupSidecar] : [backupArtifact, backupSidecar];
  const missing = needed.find((file) => !existsSync(file));
  if (missing !== undefined) {
    const why = backupArtifact === null ? '' : '; a backup is a file and its sidecar';
    throw new DomainError('not_found', `${missing} does not exist${why}`);
  }
  const target = sidecarPath(artifactPath);
  const restoring = `${target}.restoring`;
  rmSync(restoring, { force: true });
  rmSync(`${restoring}-journal`, { force: true });

  // 1. The restored sidecar, beside the room's: checked, brought to this ce's schema, marked, fsynced.
  const check = new Database(backupSidecar, { readonly: true, fileMustExist: true });
  try {
    const [result] = integrityOf(check, backupSidecar);
    if (result?.integrity_check !== 'ok') {
      throw new DomainError('invalid_input', `${backupSidecar} fails SQLite's integrity check; nothing was restored`);
    }
    // The online backup API: a backup served as a room of its own may hold changes in its WAL still.
    await check.backup(restoring, { progress: () => ALL_PAGES });
  } catch (error) {
    rmSync(restoring, { force: true });
    throw error;
  } finally {
    check.close();
  }
  // Permissions belong to where the room lives: the bits of the file it comes back to, less the umask's (copyBits).
  const mode = copyBits(restoring, artifactBits(existsSync(artifactPath) ? artifactPath : source));
  let revokedAgain: number | null = null;
  try {
    const copy = new Database(restoring);
    try {
      copy.pragma('journal_mode = DELETE');
      copy.pragma('synchronous = FULL');
      migrate(copy, now);
      copy.prepare('DELETE FROM writer_lock').run();
      if (existsSync(target)) revokedAgain = carryRevocations(copy, target);
      forgetLitestream(copy);
      const latest = latestRevision(copy);
      if (!latest) throw new DomainError('invalid_input', `${backupSidecar} has no revision; nothing was restored`);
      // From a sidecar alone, the file is its latest revision's text; a backup's file must be that already.
      if (backupArtifact !== null && hashBytes(readFileSync(backupArtifact)) !== latest.hash) {
        throw new DomainError(
          'invalid_input',
          `${backupArtifact} is not the file its sidecar last recorded (revision ${latest.number}); nothing was restored`,
        );
      }
      copy
        .prepare('INSERT OR REPLACE INTO file_rewrite (id, revision, reason, at) VALUES (1, ?, ?, ?)')
        .run(latest.number, `restored from ${path.resolve(source)}`, now);
    } finally {
      copy.close();
    }
    fsyncFile(restoring, mode);
  } catch (error) {
    rmSync(restoring, { force: true });
    throw error;
  }

  // 2. What was there, kept: the old sidecar made one file (its WAL folded in), then both copied.
  const kept: string[] = [];
  if (existsSync(target)) {
    const old = new Database(target, { fileMustExist: true });
    try {
      old.pragma('wal_checkpoint(TRUNCATE)');
      old.pragma('journal_mode = DELETE');
    } finally {
      old.close();
    }
    for (const extra of ['-wal', '-shm']) rmSync(`${target}${extra}`, { force: true });
  }
  for (const file of [artifactPath, target]) {
    if (!existsSync(file)) continue;
    writeFileDurably(`${file}${suffix}`, readFileSync(file), {
      temp: `${file}${suffix}.partial`,
      mode: dataBits(file),
      as: 'new',
    });
    kept.push(path.resolve(`${file}${suffix}`));
  }

  // 3. The point of no return: the restored sidecar takes the room's name in one rename.
  renameSync(restoring, target);
  fsyncDirectory(path.dirname(target));

  return { kept, revokedAgain };
}
