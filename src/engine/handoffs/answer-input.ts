import type { InputOf } from '../../../generated/operations.js';
import type { Caller, TaskUpdateOutput } from '../../../generated/types.js';
import { DomainError } from '../../errors.js';
import { change, taskView, type Room } from '../room.js';
import { loadVisibleTask } from './load.js';

/**
 * tasks/update: the owner answers outstanding input requests. Unknown or
 * already answered keys are ignored; when none remain the task is working
 * again. Nothing answered means nothing written.
 */
export function answerTaskInput(room: Room, caller: Caller, args: InputOf<'answerTaskInput'>): TaskUpdateOutput {
  return change(room, ({ now, record }) => {
    const task = loadVisibleTask(room, caller, args.task_id);
    if (task.owner !== caller.participant) {
      throw new DomainError('forbidden', `only the task's owner (${task.owner}) answers its input requests`);
    }
    if (task.status !== 'input_required') return { task: taskView(room, task), answered: [] };
    const answered = Object.entries(args.input_responses)
      .filter(([key, response]) =>
        room.store.answerInput({
          task_id: task.id,
          key,
          response_json: JSON.stringify(response),
          answered_by: caller.participant,
          answered_at: now,
        }),
      )
      .map(([key]) => key);
    if (answered.length === 0) return { task: taskView(room, task), answered };
    const remaining = room.store.listOutstandingInputs(task.id).length;
    const updated =
      remaining === 0
        ? { ...task, status: 'working' as const, status_message: null, last_updated_at: now }
        : { ...task, last_updated_at: now };
    room.store.updateTask(updated);
    const handoff = room.store.getHandoff(task.handoff_id)!;
    room.store.updateHandoff({ ...handoff, updated_at: now });
    record({
      type: 'task.input_received',
      actor: caller.participant,
      handoffId: task.handoff_id,
      taskId: task.id,
      payload: { keys: answered, remaining },
    });
    return { task: taskView(room, updated), answered };
  });
}
