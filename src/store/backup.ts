// Backups of a room while it runs, and putting one back. A backup is a room
// of its own: the artifact and its sidecar beside it, so it can be opened,
// served or restored as it is.
import { copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DomainError } from '../engine/errors.js';
import { writeArtifactFileAtomically } from './artifact-file.js';
import { sidecarPath } from './sidecar.js';

/** Enough pages for any sidecar: the whole copy is one step, one consistent snapshot. */
const ALL_PAGES = 0x7fffffff;

export interface BackupReport {
  artifact: string;
  sidecar: string;
  /** The revision the copied artifact is: the sidecar's latest, as of the snapshot. */
  revision: number;
}

/** Where a backup goes: DEST itself, or DEST/<the artifact's name> when DEST is a directory. */
export function backupTarget(artifactPath: string, dest: string): string {
  const isDirectory = existsSync(dest) && statSync(dest).isDirectory();
  return path.resolve(isDirectory ? path.join(dest, path.basename(artifactPath)) : dest);
}

/**
 * Copies the sidecar with SQLite's online backup API (a read-only
 * connection, so a running room is neither stopped nor blocked: WAL lets it
 * write on) and writes the artifact beside the copy as the copy's latest
 * revision says, so the two agree whatever the live file is doing. The
 * copy keeps no writer's lock of the room it came from.
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
  const partial = `${sidecar}.partial`;
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
    let revision: { number: number; content: string | Buffer } | undefined;
    try {
      copy.prepare('DELETE FROM writer_lock').run();
      revision = copy.prepare('SELECT number, content FROM revisions ORDER BY number DESC LIMIT 1').get() as
        typeof revision | undefined;
      copy.pragma('journal_mode = DELETE'); // one file, nothing beside it
    } finally {
      copy.close();
    }
    if (!revision) throw new DomainError('conflict', 'the room has no revision yet; there is nothing to back up');
    writeArtifactFileAtomically(
      artifact,
      typeof revision.content === 'string' ? Buffer.from(revision.content) : revision.content,
    );
    renameSync(partial, sidecar);
    return { artifact, sidecar, revision: revision.number };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * Puts a backup (its artifact and sidecar) in place of a room's, once the
 * backup's sidecar passes an integrity check. The caller has made sure no
 * room process writes the target (src/cli/backup.ts takes the writer's lock
 * first). What was there is kept beside it, renamed with `suffix`, never
 * overwritten. Returns the kept files.
 */
export function restoreRoom(backupArtifact: string, artifactPath: string, suffix: string): string[] {
  const backupSidecar = sidecarPath(backupArtifact);
  for (const file of [backupArtifact, backupSidecar]) {
    if (!existsSync(file))
      throw new DomainError('not_found', `${file} does not exist; a backup is a file and its sidecar`);
  }
  const check = new Database(backupSidecar, { readonly: true, fileMustExist: true });
  try {
    const [result] = check.pragma('integrity_check') as { integrity_check: string }[];
    if (result?.integrity_check !== 'ok') {
      throw new DomainError('invalid_input', `${backupSidecar} fails SQLite's integrity check; nothing was restored`);
    }
  } finally {
    check.close();
  }
  const target = sidecarPath(artifactPath);
  const kept: string[] = [];
  for (const file of [artifactPath, target]) {
    if (!existsSync(file)) continue;
    renameSync(file, `${file}${suffix}`);
    kept.push(`${file}${suffix}`);
  }
  // The replaced sidecar's WAL and shared memory were checkpointed when its last writer closed.
  for (const extra of ['-wal', '-shm']) rmSync(`${target}${extra}`, { force: true });
  copyFileSync(backupSidecar, `${target}.restoring`);
  renameSync(`${target}.restoring`, target);
  copyFileSync(backupArtifact, `${artifactPath}.restoring`);
  renameSync(`${artifactPath}.restoring`, artifactPath);
  return kept;
}
