import type { Caller, Decision, HandoffDecisionInput, HandoffOutput } from '../../../generated/types.js';
import { validateHandoffDecisionInput } from '../../../generated/validators.js';
import { requireParticipant, type Actor } from '../access.js';
import { checkInput } from '../check-input.js';
import { toTimestamp } from '../clock.js';
import { DomainError } from '../errors.js';
import { appendHistory } from '../history.js';
import { change, handoffView, type Room } from '../room.js';
import { loadHandoff } from './load.js';

/**
 * handoff_approve / handoff_reject: an approver's decision on a result,
 * recorded on the handoff. It never touches the task.
 */
function decideHandoff(
  room: Room,
  actor: Actor,
  input: HandoffDecisionInput,
  decision: Decision['decision'],
): HandoffOutput {
  const args = checkInput(validateHandoffDecisionInput, input);
  const caller = requireParticipant(actor, 'approve');
  return change(room, ({ now, record }) => {
    const handoff = loadHandoff(room, args.handoff_id);
    if (handoff.status !== 'result_ready') {
      throw new DomainError('conflict', `handoff ${handoff.id} is ${handoff.status}, not result_ready`, {
        status: handoff.status,
      });
    }
    const recorded: Decision = { decision, by: caller.participant, at: toTimestamp(now), note: args.note ?? null };
    const decided = { ...handoff, status: decision, decision_json: JSON.stringify(recorded), updated_at: now };
    room.store.updateHandoff(decided);
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

export const approveHandoff = (room: Room, actor: Actor, input: HandoffDecisionInput): HandoffOutput =>
  decideHandoff(room, actor, input, 'approved');

export const rejectHandoff = (room: Room, actor: Actor, input: HandoffDecisionInput): HandoffOutput =>
  decideHandoff(room, actor, input, 'rejected');
