import type { Caller } from '../../../generated/types.js';
import type { HandoffRow, TaskRow } from '../../store/rows.js';
import { DomainError, unknownHandoff, unknownTask } from '../../errors.js';
import { canSeeTask, type Room } from '../room.js';

export function loadHandoff(room: Room, handoffId: string): HandoffRow {
  const row = room.store.getHandoff(handoffId);
  if (!row) throw unknownHandoff(handoffId);
  return row;
}

/** Unknown and not-visible answer the same: `unknown task`. */
export function loadVisibleTask(room: Room, caller: Caller, taskId: string): TaskRow {
  const row = room.store.getTask(taskId);
  if (!row || !canSeeTask(caller, row)) throw unknownTask();
  return row;
}

/** The task row of a handoff in a state that must still have one. */
export function loadTaskOf(room: Room, handoff: HandoffRow): TaskRow {
  const row = room.store.getTask(handoff.task_id);
  if (!row) throw new DomainError('conflict', `handoff ${handoff.id} has no live task`);
  return row;
}

/** The task of a handoff, as `change`'s `alters` names it: none for an unknown handoff. */
export function taskOfHandoff(room: Room, handoffId: string): string[] {
  const row = room.store.getHandoff(handoffId);
  return row ? [row.task_id] : [];
}

export const isTerminal = (task: TaskRow): boolean =>
  task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';
