import path from 'node:path';
import type { EventType } from '../../../generated/types.js';
import type { Room } from '../../engine/index.js';

/** The room's resources: the artifact and JSON views, all under workspace:///. */
export function resourceUris(room: Room) {
  return {
    artifact: `workspace:///${path.basename(room.artifactPath)}`,
    handoffs: 'workspace:///.room/handoffs',
    proposals: 'workspace:///.room/proposals',
    history: 'workspace:///.room/history',
  };
}

export type ResourceKey = keyof ReturnType<typeof resourceUris>;

/** Which resources an event changes: what resources/updated is sent for. */
export function resourcesChangedBy(type: EventType): ResourceKey[] {
  if (type.startsWith('handoff.') || type.startsWith('task.')) {
    return type === 'handoff.approved' || type === 'handoff.rejected' ? ['handoffs', 'history'] : ['handoffs'];
  }
  switch (type) {
    case 'proposal.created':
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
