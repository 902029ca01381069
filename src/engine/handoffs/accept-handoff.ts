import { handoffAllows } from '../../../generated/rules.js';
import type { InputOf } from '../../../generated/operations.js';
import type { Caller, HandoffTaskOutput } from '../../../generated/types.js';
import { DomainError } from '../../errors.js';
import { change, handoffView, taskView, type Room } from '../room.js';
import { loadHandoff, loadTaskOf } from './load.js';

/**
 * handoff_accept: open → accepted by the named assignee, or by anyone with
 * write when none was named. The task stays working and records the assignee.
 */
export function acceptHandoff(room: Room, caller: Caller, args: InputOf<'acceptHandoff'>): HandoffTaskOutput {
  return change(room, ({ now, record }) => {
    const handoff = loadHandoff(room, args.handoff_id);
    if (!handoffAllows('accept', handoff.status)) {
      throw new DomainError('conflict', `handoff ${handoff.id} is ${handoff.status}, not open`, {
        status: handoff.status,
      });
    }
    if (handoff.assignee !== null && handoff.assignee !== caller.participant) {
      throw new DomainError('forbidden', `handoff ${handoff.id} is assigned to ${handoff.assignee}`);
    }
    const task = loadTaskOf(room, handoff);
    const acceptedHandoff = {
      ...handoff,
      status: 'accepted' as const,
      assignee: caller.participant,
      accepted_at: now,
      updated_at: now,
    };
    const assignedTask = { ...task, assignee: caller.participant, last_updated_at: now };
    room.store.updateHandoff(acceptedHandoff, handoff);
    room.store.updateTask(assignedTask);
    record({ type: 'handoff.accepted', actor: caller.participant, handoffId: handoff.id, taskId: task.id });
    return { handoff: handoffView(room, acceptedHandoff), task: taskView(room, assignedTask) };
  });
}
