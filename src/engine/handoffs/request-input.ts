import { handoffAllows } from '../../../generated/rules.js';
import type { InputOf } from '../../../generated/operations.js';
import type { Caller, HandoffRequestInputOutput, InputRequest, RequestedSchema } from '../../../generated/types.js';
import { DomainError } from '../../errors.js';
import { newInputKey } from '../ids.js';
import { change, handoffView, taskView, type Room } from '../room.js';
import { checkForm } from './answer-form.js';
import { loadHandoff, loadTaskOf, taskOfHandoff } from './load.js';

/** The form asked for when the assignee gives no schema: one free-text answer, titled for the form a person sees. */
const DEFAULT_REQUESTED_SCHEMA: RequestedSchema = {
  type: 'object',
  properties: { answer: { type: 'string', title: 'Answer' } },
  required: ['answer'],
};

/**
 * handoff_request_input: the assignee asks the owner for input. The request
 * is an elicitation/create form under a key unique for the task's lifetime;
 * the task goes to input_required.
 */
export function requestHandoffInput(
  room: Room,
  caller: Caller,
  args: InputOf<'requestHandoffInput'>,
): HandoffRequestInputOutput {
  return change(
    room,
    ({ now, record }) => {
      if (args.requested_schema) checkForm(args.requested_schema, ['requested_schema']);
      const handoff = loadHandoff(room, args.handoff_id);
      if (handoff.assignee !== caller.participant || handoff.accepted_at === null) {
        throw new DomainError('forbidden', `only the assignee who accepted handoff ${handoff.id} may ask for input`);
      }
      if (!handoffAllows('work', handoff.status)) {
        throw new DomainError('conflict', `handoff ${handoff.id} is ${handoff.status}, not accepted`, {
          status: handoff.status,
        });
      }
      const task = loadTaskOf(room, handoff);
      if (task.status !== 'working' && task.status !== 'input_required') {
        throw new DomainError('conflict', `task ${task.id} is ${task.status}`, { status: task.status });
      }
      const key = args.key ?? newInputKey();
      if (room.store.getInput(task.id, key)) {
        throw new DomainError(
          'conflict',
          `input key ${key} was already used for this task; keys are unique for its lifetime`,
          {
            key,
          },
        );
      }
      const request: InputRequest = {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: args.message,
          requestedSchema: args.requested_schema ?? DEFAULT_REQUESTED_SCHEMA,
        },
      };
      room.store.insertInput({
        task_id: task.id,
        key,
        handoff_id: handoff.id,
        request_json: JSON.stringify(request),
        requested_by: caller.participant,
        requested_at: now,
      });
      const waiting = {
        ...task,
        status: 'input_required' as const,
        status_message: 'waiting for input',
        last_updated_at: now,
      };
      room.store.updateTask(waiting);
      room.store.updateHandoff({ ...handoff, updated_at: now }, handoff);
      record({
        type: 'task.input_required',
        actor: caller.participant,
        handoffId: handoff.id,
        taskId: task.id,
        payload: { key },
      });
      return { handoff: handoffView(room, { ...handoff, updated_at: now }), task: taskView(room, waiting), key };
    },
    // A waiting progress report goes first.
    { alters: () => taskOfHandoff(room, args.handoff_id) },
  );
}
