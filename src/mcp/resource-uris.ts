// The room's views as MCP resources: their URIs, and what changes them.
import path from 'node:path';
import type { EventType } from '../../generated/types.js';
import { readableViews, type Actor, type Room, type RoomView } from '../engine/index.js';

/** The room's resources: the artifact and JSON views, all under workspace:///. */
export function resourceUris(room: Room): Record<RoomView, string> {
  return {
    artifact: `workspace:///${path.basename(room.artifactPath)}`,
    handoffs: 'workspace:///.room/handoffs',
    proposals: 'workspace:///.room/proposals',
    history: 'workspace:///.room/history',
  };
}

/** The views `actor` may read, by URI. */
export function readableUris(room: Room, actor: Actor): Map<string, RoomView> {
  const uris = resourceUris(room);
  return new Map(readableViews(actor).map((view) => [uris[view], view]));
}

/** Which views an event changes: what resources/updated is sent for. */
export function viewsChangedBy(type: EventType): RoomView[] {
  if (type.startsWith('handoff.') || type.startsWith('task.')) {
    return type === 'handoff.approved' || type === 'handoff.rejected' ? ['handoffs', 'history'] : ['handoffs'];
  }
  switch (type) {
    case 'proposal.created':
    case 'proposal.mergeable':
      return ['proposals'];
    case 'proposal.accepted':
      return ['artifact', 'proposals', 'history'];
    case 'proposal.rejected':
    case 'proposal.withdrawn':
      return ['proposals', 'history'];
    case 'artifact.external_edit':
      return ['artifact', 'history'];
    default:
      return [];
  }
}
