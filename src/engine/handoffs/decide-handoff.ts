import { handoffAllows } from '../../../generated/rules.js';
import type { InputOf } from '../../../generated/operations.js';
import type { Caller, Decision, HandoffOutput } from '../../../generated/types.js';
import { toTimestamp } from '../clock.js';
import { DomainError } from '../../errors.js';
import { appendHistory } from '../history.js';
import { change, handoffView, type Room } from '../room.js';
import { loadHandoff } from './load.js';
import { requireSecondPerson } from '../settings.js';

/**
 * handoff_approve / handoff_reject: an approver's decision on a result,
 * recorded on the handoff. It never touches the task.
 */
function decideHandoff(
  room: Room,
  caller: Caller,
  args: InputOf<'approveHandoff'>,
  decision: Decision['decision'],
): HandoffOutput {
  return change(room, ({ now, record }) => {
    const handoff = loadHandoff(room, args.handoff_id);
    if (!handoffAllows('decide', handoff.status)) {
      throw new DomainError('conflict', `handoff ${handoff.id} is ${handoff.status}, not result_ready`, {
        status: handoff.status,
      });
    }
    // The result is the assignee's work: with four eyes, someone else decides on it.
    requireSecondPerson(room, caller, handoff.assignee ?? '', `the result of handoff ${handoff.id}`);
    const recorded: Decision = { decision, by: caller.participant, at: toTimestamp(now), note: args.note ?? null };
    const decided = { ...handoff, status: decision, decision_json: JSON.stringify(recorded), updated_at: now };
    room.store.updateHandoff(decided, handoff);
    appendHistory(room, {
      kind: decision === 'approved' ? 'handoff_approved' : 'handoff_rejected',
      at: now,
      actor: caller.participant,
      handoff_id: handoff.id,
      note: args.note ?? null,
    });
    record({
      type: decision === 'approved' ? 'handoff.approved' : 'handoff.rejected',
      actor: caller.participant,
      handoffId: handoff.id,
      taskId: null,
    });
    return { handoff: handoffView(room, decided) };
  });
}

export const approveHandoff = (room: Room, caller: Caller, args: InputOf<'approveHandoff'>): HandoffOutput =>
  decideHandoff(room, caller, args, 'approved');

export const rejectHandoff = (room: Room, caller: Caller, args: InputOf<'rejectHandoff'>): HandoffOutput =>
  decideHandoff(room, caller, args, 'rejected');
