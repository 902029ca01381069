import type { InputOf } from '../../../generated/operations.js';
import type { Caller, HandoffCreateOutput } from '../../../generated/types.js';
import type { HandoffRow, TaskRow } from '../../store/rows.js';
import { DomainError, invalidField } from '../../errors.js';
import { newCorrelationId, newHandoffId, newTaskId } from '../ids.js';
import {
  MAX_ACTIVE_TASKS,
  TASK_OPERATION,
  TASK_POLL_INTERVAL_MS,
  TASK_SCHEMA_VERSION,
  TASK_TTL_MS,
} from '../limits.js';
import { isParticipant } from '../participants.js';
import { canSeeTask, change, handoffView, taskView, type Room } from '../room.js';
import { toHandoff } from '../row-mapping.js';

/**
 * handoff_create: the handoff (open), its task (working) and the event, in
 * one transaction. The same participant and idempotency_key again returns
 * the original, writing nothing, whatever the other fields say.
 */
export function createHandoff(room: Room, caller: Caller, args: InputOf<'createHandoff'>): HandoffCreateOutput {
  return change(room, ({ now, record }) => {
    if (args.idempotency_key !== undefined) {
      const existing = room.store.getHandoffByIdempotencyKey(caller.participant, args.idempotency_key);
      if (existing) {
        const task = room.store.getTask(existing.task_id);
        return {
          handoff: handoffView(room, existing),
          task: task && canSeeTask(caller, task) ? taskView(room, task) : null,
          replayed: true,
        };
      }
    }
    if (args.assignee !== undefined && !isParticipant(room, args.assignee)) {
      throw invalidField('assignee', `${args.assignee} is not a participant of this room`);
    }
    const active = room.store.countActiveTasks();
    if (active >= MAX_ACTIVE_TASKS) throw activeTaskLimit(room, caller, active);
    const correlationId = newCorrelationId();
    const handoff: HandoffRow = {
      id: newHandoffId(),
      task_id: newTaskId(),
      status: 'open',
      summary: args.summary,
      constraints: args.constraints ?? null,
      owner: caller.participant,
      assignee: args.assignee ?? null,
      artifacts_json: JSON.stringify(args.artifacts ?? []),
      idempotency_key: args.idempotency_key ?? null,
      correlation_id: correlationId,
      result_json: null,
      error_json: null,
      decision_json: null,
      progress_json: null,
      created_at: now,
      updated_at: now,
      accepted_at: null,
      completed_at: null,
      cancelled_at: null,
      events_pruned_through: 0,
    };
    const task: TaskRow = {
      id: handoff.task_id,
      handoff_id: handoff.id,
      owner: caller.participant,
      assignee: null,
      operation: TASK_OPERATION,
      status: 'working',
      status_message: null,
      created_at: now,
      last_updated_at: now,
      ttl_ms: TASK_TTL_MS,
      poll_interval_ms: TASK_POLL_INTERVAL_MS,
      correlation_id: correlationId,
      schema_version: TASK_SCHEMA_VERSION,
      result_json: null,
      error_json: null,
    };
    room.store.insertHandoff(handoff);
    room.store.insertTask(task);
    record({
      type: 'handoff.created',
      actor: caller.participant,
      handoffId: handoff.id,
      taskId: task.id,
      payload: { assignee: handoff.assignee },
    });
    // A handoff made this moment has asked for no input yet: its view needs no read of them.
    return { handoff: toHandoff(handoff, []), task: taskView(room, task), replayed: false };
  });
}

/**
 * A create past the room's active tasks, refused saying whose they are. Only
 * a task's owner cancels it, so the caller learns whether one of its own can
 * make room, and an operator sees the places a removed participant's tasks
 * still hold (the reference says how to end them).
 */
function activeTaskLimit(room: Room, caller: Caller, active: number): DomainError {
  const owners = room.store
    .activeTasksByOwner()
    .map((row) => ({ participant: row.owner, active: row.active, removed: !isParticipant(room, row.owner) }));
  const yours = owners.find((owner) => owner.participant === caller.participant)?.active ?? 0;
  const others = owners
    .filter((owner) => owner.participant !== caller.participant)
    .map((owner) => `${owner.participant} ${owner.active}${owner.removed ? ' (removed from the room)' : ''}`);
  return new DomainError(
    'limit_reached',
    `the room already has ${active} active tasks (working or input_required), the most it allows: ` +
      `${yours === 0 ? 'none of them yours' : `${yours} of them yours`}${others.length > 0 ? `; ${others.join(', ')}` : ''}. ` +
      (yours === 0 ? 'One must end first; only its owner may cancel it' : 'Complete or cancel one of yours first'),
    { limit: MAX_ACTIVE_TASKS, owners },
  );
}
