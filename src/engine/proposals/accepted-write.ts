// Accepting a proposal writes two durable things, the file and the sidecar's
// record of it, and a crash may fall between them. The protocol:
//
//   open ──(1) pending write committed──▶ pending ──(2) temp file, fsync,
//   rename, fsync dir──▶ in the file ──(3) revision, decision, history and
//   event committed, pending write removed──▶ accepted
//
// A failed write (2) removes the pending write and the proposal stays open.
// After a crash, the next sync settles a pending write by the bytes on disk:
// the file holds its bytes → (3) is done now, with the approver's time;
// anything else → the write never happened (or an outside edit replaced it)
// and the pending write is dropped, the proposal still open. Only bytes that
// match nothing the room wrote become an outside edit.
//
// In a room that groups commits (group-commit.ts) each of these steps still
// commits before the room goes on: `durableNow` commits the batch it joins.
import type { EventType } from '../../../generated/types.js';
import type { PendingWriteRow, ProposalRow, RevisionRow } from '../../store/rows.js';
import { appendHistory } from '../history.js';
import { change, type Change, type Room } from '../room.js';
import { refreshMergeable } from './mergeable.js';

/** Step (3): the revision, the decision on the proposal, its history entry and event; the pending write goes. */
export function recordAcceptedWrite(room: Room, write: PendingWriteRow, record: Change['record']): ProposalRow {
  const proposal = room.workspace.getProposal(write.proposal_id)!;
  const revision: RevisionRow = {
    number: write.base_revision + 1,
    hash: write.hash,
    size: write.size,
    content: write.content ?? proposal.content,
    source: 'proposal',
    author: proposal.author,
    approver: write.approver,
    proposal_id: proposal.id,
    at: write.at,
    merged_base: write.merged_base,
  };
  room.workspace.insertRevision(revision);
  const decided: ProposalRow = {
    ...proposal,
    status: 'accepted',
    decided_by: write.approver,
    decided_at: write.at,
    note: write.note,
    revision: revision.number,
  };
  room.workspace.decideProposal(decided);
  appendHistory(room, {
    kind: 'revision',
    at: write.at,
    actor: write.approver,
    revision: revision.number,
    proposal_id: proposal.id,
    note: write.note,
  });
  record({
    type: 'proposal.accepted' satisfies EventType,
    actor: write.approver,
    handoffId: null,
    taskId: null,
    payload: { proposal_id: proposal.id, revision: revision.number },
  });
  room.workspace.deletePendingWrite();
  refreshMergeable(room, revision, record);
  return decided;
}

/**
 * Settles a write the room began and did not finish, by what the file holds
 * now (`diskHash`). Called before any other look at the file.
 */
export function settlePendingWrite(room: Room, diskHash: string): void {
  const write = room.workspace.getPendingWrite();
  if (!write) return;
  change(
    room,
    ({ record }) => {
      const proposal = room.workspace.getProposal(write.proposal_id);
      const current = room.workspace.currentRevision();
      const reached = write.hash === diskHash && proposal?.status === 'open' && current?.number === write.base_revision;
      if (reached) recordAcceptedWrite(room, write, record);
      else room.workspace.deletePendingWrite();
    },
    { durableNow: true },
  );
}
