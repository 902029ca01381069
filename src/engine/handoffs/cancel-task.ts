import { handoffAllows } from '../../../generated/rules.js';
import type { InputOf } from '../../../generated/operations.js';
import type { Caller, TaskCancelOutput } from '../../../generated/types.js';
import { DomainError } from '../../errors.js';
import { change, taskView, type Room } from '../room.js';
import { isTerminal, loadVisibleTask } from './load.js';

/**
 * tasks/cancel: the owner cancels a task that is not terminal, and its
 * handoff if no result is ready yet. A terminal task stays as it was.
 */
export function cancelTask(room: Room, caller: Caller, args: InputOf<'cancelTask'>): TaskCancelOutput {
  return change(
    room,
    ({ now, record }) => {
      const task = loadVisibleTask(room, caller, args.task_id);
      if (task.owner !== caller.participant) {
        throw new DomainError('forbidden', `only the task's owner (${task.owner}) may cancel it`);
      }
      if (isTerminal(task)) return { task: taskView(room, task), cancelled: false };
      const cancelled = {
        ...task,
        status: 'cancelled' as const,
        status_message: `cancelled by ${caller.participant}`,
        last_updated_at: now,
      };
      room.store.updateTask(cancelled);
      const handoff = room.store.getHandoff(task.handoff_id)!;
      if (handoffAllows('cancel', handoff.status)) {
        room.store.updateHandoff({ ...handoff, status: 'cancelled', cancelled_at: now, updated_at: now }, handoff);
      }
      record({ type: 'handoff.cancelled', actor: caller.participant, handoffId: handoff.id, taskId: task.id });
      return { task: taskView(room, cancelled), cancelled: true };
    },
    // A waiting progress report goes first.
    { alters: () => [args.task_id] },
  );
}
