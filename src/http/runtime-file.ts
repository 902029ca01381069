import { randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DomainError } from '../engine/index.js';
import { parseOutsideJson } from '../outside-json.js';
import { writeFileWhole } from '../store/durable-file.js';
import { isThisProcess, stillRunning, thisProcess } from '../store/process-identity.js';
import { sidecarPath } from '../store/sidecar.js';

/**
 * A small file beside the sidecar while a room process runs: where it
 * listens, and an operator token. Whoever can read it can open the room file
 * on disk anyway, so it is the local operator's key to the running room
 * (`ce` sends its state changes through it). Readable by its owner only;
 * removed when the room stops.
 */
export interface RuntimeInfo {
  pid: number;
  /** The kernel's start time of the room process, so a reused pid is not taken for it. */
  process_start: string | null;
  base_url: string;
  mcp_url: string;
  rest_url: string;
  operator_token: string;
  /** With HTTPS: the SHA-256 fingerprint of the room's certificate, which ce on this machine trusts as it is. */
  tls_fingerprint256?: string;
  started_at: string;
}

export const runtimeFilePath = (artifactPath: string): string => `${sidecarPath(artifactPath)}.run`;

export const newOperatorToken = (): string => `op_${randomBytes(32).toString('base64url')}`;

/** The runtime file's contents, whatever process wrote them; null when there is none or it is not one. */
function readRecord(file: string): RuntimeInfo | null {
  let info: RuntimeInfo;
  try {
    info = parseOutsideJson(readFileSync(file, 'utf8'), file) as RuntimeInfo;
  } catch {
    return null;
  }
  if (typeof info?.pid !== 'number' || typeof info.base_url !== 'string' || typeof info.operator_token !== 'string') {
    return null;
  }
  return info;
}

const identityOf = (info: RuntimeInfo) => ({ pid: info.pid, process_start: info.process_start ?? null });

/**
 * Makes way for this process's runtime file: nothing there, or a stale one
 * (its process gone) removed. A symbolic link planted at the path is refused,
 * never followed (it would carry the operator's token elsewhere), and so is
 * the file of a room process that still runs. ce serve holds the sidecar's
 * writer lock before it gets here, so a live one means the lock and the file
 * disagree: better to stop and say so than to take the file over.
 */
function makeWay(file: string): void {
  let stat;
  try {
    stat = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (stat.isSymbolicLink()) {
    throw new DomainError(
      'conflict',
      `${file} is a symbolic link (to ${readlinkSync(file)}): the room writes its operator token there and never through a link; remove it and start again`,
    );
  }
  if (!stat.isFile()) {
    throw new DomainError('conflict', `${file} is not a file: the room writes its runtime file there; remove it`);
  }
  const info = readRecord(file);
  if (info && !isThisProcess(identityOf(info)) && stillRunning(identityOf(info))) {
    throw new DomainError(
      'locked',
      `${file} belongs to room process ${info.pid}, which still runs (${info.base_url}); stop it first`,
      { pid: info.pid },
    );
  }
  rmSync(file, { force: true });
}

/**
 * Writes the runtime file: owner-only (0600), created exclusively and never
 * through a link, whole before its name appears (durable-file.ts). Not
 * fsynced: it describes this process, which a power cut ends, and what a cut
 * leaves of it (nothing, an empty or a torn file) is read as no room running
 * and replaced by the next start (`makeWay`). Its two fsyncs were 3 ms of a
 * start (BENCHMARKS.md).
 */
export function writeRuntimeFile(artifactPath: string, info: Omit<RuntimeInfo, 'pid' | 'process_start'>): void {
  const file = runtimeFilePath(artifactPath);
  makeWay(file);
  const record: RuntimeInfo = { ...thisProcess(), ...info };
  writeFileWhole(file, Buffer.from(`${JSON.stringify(record, null, 2)}\n`), {
    temp: path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`),
    mode: 0o600,
    as: 'new',
  });
}

/** Removes the runtime file, if this process wrote it. */
export function removeRuntimeFile(artifactPath: string): void {
  const file = runtimeFilePath(artifactPath);
  const info = readRecord(file);
  if (info && isThisProcess(identityOf(info))) rmSync(file, { force: true });
}

/**
 * The running room's details, or null when none runs. A file whose process
 * is gone (killed, or the machine restarted) is removed as soon as it is
 * read, so no command ever sends a request to its address.
 */
export function readRuntimeFile(artifactPath: string): RuntimeInfo | null {
  const file = runtimeFilePath(artifactPath);
  const info = readRecord(file);
  if (!info) return null;
  if (stillRunning(identityOf(info))) return info;
  removeStale(file, info);
  return null;
}

/** Removes the stale record read, and only it: a room starting meanwhile writes a new one, with a token of its own. */
function removeStale(file: string, stale: RuntimeInfo): void {
  try {
    if (readRecord(file)?.operator_token === stale.operator_token && lstatSync(file).isFile()) rmSync(file);
  } catch {
    // A reader that may not write the directory leaves it; it is not read as running anyway.
  }
}
