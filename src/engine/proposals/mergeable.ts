// Whether each open proposal merges onto the current revision (Mergeable):
// worked out when it is made and whenever a new revision lands, kept with
// the proposal, and news to its author when it changes (proposal.mergeable).
import type { EventType, Mergeable } from '../../../generated/types.js';
import type { ProposalRow, RevisionRow } from '../../store/rows.js';
import type { Change, Room } from '../room.js';
import { mergeThreeWay } from './merge.js';

/**
 * A proposal against `current`: up to date on it, clean onto it, the lines
 * where both changed the same, already in it (approving it would write
 * nothing new, and is refused: merge-onto.ts), or onto nothing, since
 * `current` is not text (an outside edit; approving is refused until the
 * file is text again).
 */
export function mergeableOnto(
  room: Room,
  row: Pick<ProposalRow, 'base_revision' | 'content'>,
  current: RevisionRow,
): Mergeable {
  if (typeof current.content !== 'string') return { status: 'not_text', revision: current.number, conflicts: [] };
  if (row.base_revision === current.number) return { status: 'up_to_date', revision: current.number, conflicts: [] };
  const base = room.workspace.getRevision(row.base_revision)!;
  const merge = mergeThreeWay(base.content as string, current.content, row.content);
  if (merge.text === null) return { status: 'conflicts', revision: current.number, conflicts: merge.conflicts };
  return {
    status: merge.text === current.content ? 'already_applied' : 'clean',
    revision: current.number,
    conflicts: [],
  };
}

/** As the sidecar keeps it. */
export const mergeableJson = (mergeable: Mergeable): string => JSON.stringify(mergeable);

/** After `current` landed, within its change: each open proposal worked out again, an event where it changed. */
export function refreshMergeable(room: Room, current: RevisionRow, record: Change['record']): void {
  for (const row of room.workspace.openProposals()) {
    const next = mergeableOnto(room, row, current);
    const before = row.mergeable_json === null ? null : (JSON.parse(row.mergeable_json) as Mergeable);
    room.workspace.setMergeable({ id: row.id, mergeable_json: mergeableJson(next) });
    if (before?.status === next.status) continue;
    record({
      type: 'proposal.mergeable' satisfies EventType,
      actor: null,
      handoffId: null,
      taskId: null,
      payload: { proposal_id: row.id, author: row.author, status: next.status, revision: current.number },
    });
  }
}
