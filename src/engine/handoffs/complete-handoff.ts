import { handoffAllows } from '../../../generated/rules.js';
import type { InputOf } from '../../../generated/operations.js';
import type { Caller, HandoffCompleteOutput, JsonRpcError } from '../../../generated/types.js';
import type { HandoffRow, TaskRow } from '../../store/rows.js';
import { DomainError } from '../../errors.js';
import { canSeeTask, change, handoffView, taskView, type Room } from '../room.js';
import { loadHandoff, loadTaskOf, taskOfHandoff } from './load.js';

/**
 * handoff_complete: the assignee finishes with a result (task completed,
 * handoff result_ready, the result copied onto the handoff) or an error
 * (task failed, handoff cancelled). A second completion never replaces the
 * first: it returns what is stored and says so.
 */
export function completeHandoff(room: Room, caller: Caller, args: InputOf<'completeHandoff'>): HandoffCompleteOutput {
  return change(
    room,
    ({ now, record }) => {
      const handoff = loadHandoff(room, args.handoff_id);
      if (handoff.assignee !== caller.participant || handoff.accepted_at === null) {
        throw new DomainError('forbidden', `only the assignee who accepted handoff ${handoff.id} may complete it`);
      }
      if (handoff.completed_at !== null) {
        const task = room.store.getTask(handoff.task_id);
        return {
          handoff: handoffView(room, handoff),
          task: task && canSeeTask(caller, task) ? taskView(room, task) : null,
          already_completed: true,
        };
      }
      if (!handoffAllows('work', handoff.status)) {
        throw new DomainError('conflict', `handoff ${handoff.id} is ${handoff.status}, not accepted`, {
          status: handoff.status,
        });
      }
      const task = loadTaskOf(room, handoff);
      if (task.status !== 'working') {
        throw new DomainError(
          'conflict',
          task.status === 'input_required'
            ? `task ${task.id} is waiting for input; it can complete once the owner has answered`
            : `task ${task.id} is ${task.status}`,
          { status: task.status },
        );
      }
      let doneHandoff: HandoffRow;
      let doneTask: TaskRow;
      // The schema holds exactly one of result and error.
      if (args.result !== undefined) {
        const resultJson = JSON.stringify(args.result);
        doneTask = {
          ...task,
          status: 'completed',
          status_message: null,
          result_json: resultJson,
          last_updated_at: now,
        };
        doneHandoff = {
          ...handoff,
          status: 'result_ready',
          result_json: resultJson,
          completed_at: now,
          updated_at: now,
        };
        record({ type: 'handoff.result_ready', actor: caller.participant, handoffId: handoff.id, taskId: task.id });
      } else {
        const error: JsonRpcError = args.error!;
        const errorJson = JSON.stringify(error);
        doneTask = {
          ...task,
          status: 'failed',
          status_message: error.message,
          error_json: errorJson,
          last_updated_at: now,
        };
        doneHandoff = {
          ...handoff,
          status: 'cancelled',
          error_json: errorJson,
          completed_at: now,
          cancelled_at: now,
          updated_at: now,
        };
        record({
          type: 'task.failed',
          actor: caller.participant,
          handoffId: handoff.id,
          taskId: task.id,
          payload: { code: error.code, message: error.message },
        });
      }
      room.store.updateTask(doneTask);
      room.store.updateHandoff(doneHandoff, handoff);
      return { handoff: handoffView(room, doneHandoff), task: taskView(room, doneTask), already_completed: false };
    },
    // The last progress report before the task ends is committed with it, just before.
    { alters: () => taskOfHandoff(room, args.handoff_id) },
  );
}
