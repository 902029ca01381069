// Whether the room can do its work now, as a readiness probe asks: the
// sidecar open for writing, the writer's lock still this process's, the last
// commit through, the file there to read. Each check says "ok" or what is
// wrong, in words that name no room content.
import { accessSync, constants, statfsSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { isThisProcess } from '../store/process-identity.js';
import { readLockHolder } from '../store/writer-lock.js';
import type { Room } from './room.js';

export interface Readiness {
  ready: boolean;
  checks: { sidecar: string; writer_lock: string; last_commit: string; file: string };
}

/** Free space past which a disk that was full counts as having room again: a few batches' log. */
const ROOM_AGAIN_BYTES = 4 * 1024 * 1024;

/** Bytes this user may still write in `dir`'s file system. */
const freeBytes = (dir: string): number => {
  const { bavail, bsize } = statfsSync(dir);
  return bavail * bsize;
};

/** Runs `check`: "ok", or the reason it gave (an exception's message counts as one). */
function checked(check: () => string | null): string {
  try {
    return check() ?? 'ok';
  } catch (error) {
    return (error as Error).message;
  }
}

export function roomReadiness(room: Room): Readiness {
  const db = room.sidecar.db;
  const checks = {
    sidecar: checked(() => {
      if (!db.open) return 'closed';
      if (!room.sidecar.writable) return 'open read-only';
      db.prepare('SELECT 1').get();
      return null;
    }),
    writer_lock: checked(() => {
      if (!db.open) return 'the sidecar is closed';
      const holder = readLockHolder(db);
      if (!holder) return 'nobody holds it';
      const mine = holder.hostname === hostname() && isThisProcess(holder);
      return mine ? null : `held by process ${holder.pid} on ${holder.hostname}`;
    }),
    last_commit: checked(() => {
      const last = room.commits.verdicts.lastCommit;
      if (last === null || last.failure === null) return null;
      // A full disk refuses writes only while it is full: with room again, the next write is taken. Waiting
      // for one to say ready would keep a room a balancer took out of its rotation out for good.
      if (last.diskFull && freeBytes(path.dirname(room.sidecar.path)) >= ROOM_AGAIN_BYTES) return null;
      return `failed: ${last.failure}`;
    }),
    file: checked(() => {
      try {
        accessSync(room.artifactPath, constants.R_OK);
        return null;
      } catch (error) {
        // By its own name and the error's code: where the room lives is not the prober's business.
        return `cannot read ${path.basename(room.artifactPath)} (${(error as NodeJS.ErrnoException).code})`;
      }
    }),
  };
  return { ready: Object.values(checks).every((check) => check === 'ok'), checks };
}
