// What the sidecar says of a room, for `ce status`: its revision, handoffs by
// status, active tasks against the room's most, open proposals, live
// sessions, the newest event and the sidecar's size on disk. Whether a
// process serves it is the command's to find out.
import { statSync } from 'node:fs';
import { roomCounts } from '../store/room-counts.js';
import { toTimestamp } from './clock.js';
import { MAX_ACTIVE_TASKS } from './limits.js';
import type { Room } from './room.js';

export interface RoomStatus {
  revision: { number: number; at: string } | null;
  handoffs: Record<string, number>;
  /** Tasks working or waiting for input, and the most the room takes (a create past it is limit_reached). */
  tasks: { active: number; limit: number };
  open_proposals: number;
  conflicted_proposals: number;
  live_sessions: number;
  last_event_at: string | null;
  events: { in_ring: number; last_id: number };
  sidecar: { path: string; bytes: number };
}

/** The sidecar and its write-ahead log together: what the room takes on disk. */
function sidecarBytes(path: string): number {
  return [path, `${path}-wal`].reduce((total, file) => {
    try {
      return total + statSync(file).size;
    } catch {
      return total;
    }
  }, 0);
}

export function roomStatus(room: Room): RoomStatus {
  // Read inside the writer's open batch, every figure counts its changes: the handoffs' too.
  if (room.sidecar.writable) room.store.writeHandoffCounts();
  const counts = roomCounts(room.sidecar.db, room.clock.now());
  return {
    revision: counts.revision && { number: counts.revision.number, at: toTimestamp(counts.revision.at) },
    handoffs: counts.handoffs,
    tasks: { active: room.store.countActiveTasks(), limit: MAX_ACTIVE_TASKS },
    open_proposals: counts.open_proposals,
    conflicted_proposals: counts.conflicted_proposals,
    live_sessions: counts.live_sessions,
    last_event_at: counts.last_event_at === null ? null : toTimestamp(counts.last_event_at),
    events: counts.events,
    sidecar: { path: room.sidecar.path, bytes: sidecarBytes(room.sidecar.path) },
  };
}
