// Outside edits recorded as they happen, in a served room. The room watches
// the artifact's file, not its directory: a watch on the directory woke the
// room for every write to any file beside it, its own sidecar's log among
// them, and woke every other room served from that directory for each of
// those writes; a neighbour's COMMIT took ten times as long, on the core
// they shared (BENCHMARKS.md, the fan-out).
//
// A watch follows a file, not a path. Editors often save by renaming a new
// file over the old one (the room writes that way too), so on each event
// the watch moves to whatever file is at the path now; while there is none
// (deleted, or between an editor's rename and its new file), the directory
// is watched until a file of that name is back.
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { realTarget } from '../../store/artifact-file.js';
import { fileIdentity } from '../../store/sidecar-files.js';
import type { Room } from '../room.js';
import { syncArtifact } from './artifact.js';

/** A burst of writes settles this long before the file is hashed. */
const SETTLE_MS = 50;

/**
 * Records outside edits of the artifact as they happen; for a symbolic
 * link, of the file it leads to. Returns a stop function. A watch that
 * cannot be placed later on (the directory gone, the system's watches used
 * up) is reported to `onError`; edits are then still recorded at the next
 * read or change, as in a room nobody serves.
 */
export function watchArtifact(room: Room, onError: (error: unknown) => void = () => {}): () => void {
  const target = realTarget(room.artifactPath);
  const name = path.basename(target);
  let watcher: FSWatcher | null = null;
  /** The file the watch is on; null while the directory is watched for one to appear. */
  let watched: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const settle = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      try {
        syncArtifact(room);
      } catch (error) {
        onError(error);
      }
    }, SETTLE_MS);
  };

  const onEvent = () => {
    if (stopped) return;
    try {
      follow();
    } catch (error) {
      onError(error);
    }
    settle();
  };

  /** Puts the watch on the file at the path now, or on the directory while there is none. */
  function follow(): void {
    for (let tries = 0; tries < 3; tries++) {
      const now = fileIdentity(target);
      if (watcher !== null && now === watched) return;
      watcher?.close();
      watcher = null;
      watched = now;
      watcher =
        now === null
          ? watch(path.dirname(target), (_event, changed) => {
              if (changed === null || changed === name) onEvent();
            })
          : watch(target, onEvent);
      watcher.on('error', onError);
      watcher.unref();
      // A file that came or went while the watch was placed: place it again.
      if (fileIdentity(target) === watched) return;
    }
  }

  follow();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    watcher?.close();
  };
}
