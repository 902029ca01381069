import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseOutsideJson } from '../outside-json.js';
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

export function writeRuntimeFile(artifactPath: string, info: RuntimeInfo): void {
  writeFileSync(runtimeFilePath(artifactPath), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

export function removeRuntimeFile(artifactPath: string, pid = process.pid): void {
  // Only the process that wrote it removes it.
  if (readRuntimeFile(artifactPath)?.pid === pid) rmSync(runtimeFilePath(artifactPath), { force: true });
}

/** The running room's details, or null when none runs (no file, or its process is gone). */
export function readRuntimeFile(artifactPath: string): RuntimeInfo | null {
  const file = runtimeFilePath(artifactPath);
  let info: RuntimeInfo;
  try {
    info = parseOutsideJson(readFileSync(file, 'utf8'), file) as RuntimeInfo;
  } catch {
    return null;
  }
  if (typeof info?.pid !== 'number' || typeof info.base_url !== 'string' || typeof info.operator_token !== 'string') {
    return null;
  }
  try {
    process.kill(info.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return null;
  }
  return info;
}
