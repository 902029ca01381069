import type { InputOf } from '../../../generated/operations.js';
import type {
  Caller,
  HandoffAnswerOutput,
  HandoffInput,
  InputResponse,
  TaskUpdateOutput,
} from '../../../generated/types.js';
import type { TaskRow } from '../../store/rows.js';
import { DomainError, invalidField } from '../../errors.js';
import { change, handoffView, taskView, type Change, type Room } from '../room.js';
import { toHandoffInput } from '../row-mapping.js';
import { checkAnswer } from './answer-form.js';
import { loadHandoff, loadTaskOf, loadVisibleTask } from './load.js';

/**
 * The owner's answers to a task's outstanding input requests, written: the
 * keys answered (unknown or already answered ones are not), and the task as
 * it is after them, working again once none remains. An accepted answer
 * must fill in its request's form; when one does not, none is written.
 * `where` names an answer in the operation's input, by its key.
 */
function answerOnTask(
  room: Room,
  { now, record }: Change,
  caller: Caller,
  task: TaskRow,
  responses: { [key: string]: InputResponse | undefined },
  where: (key: string) => string[],
): { task: TaskRow; answered: string[] } {
  for (const input of room.store.listOutstandingInputs(task.id)) {
    const response = Object.hasOwn(responses, input.key) ? responses[input.key] : undefined;
    if (response === undefined) continue;
    checkAnswer(toHandoffInput(input).request.params.requestedSchema, response, where(input.key));
  }
  const answered = Object.entries(responses)
    .filter(
      ([key, response]) =>
        response !== undefined &&
        room.store.answerInput({
          task_id: task.id,
          key,
          response_json: JSON.stringify(response),
          answered_by: caller.participant,
          answered_at: now,
        }),
    )
    .map(([key]) => key);
  if (answered.length === 0) return { task, answered };
  const remaining = room.store.listOutstandingInputs(task.id).length;
  const updated =
    remaining === 0
      ? { ...task, status: 'working' as const, status_message: null, last_updated_at: now }
      : { ...task, last_updated_at: now };
  room.store.updateTask(updated);
  const handoff = room.store.getHandoff(task.handoff_id)!;
  room.store.updateHandoff({ ...handoff, updated_at: now }, handoff);
  record({
    type: 'task.input_received',
    actor: caller.participant,
    handoffId: task.handoff_id,
    taskId: task.id,
    payload: { keys: answered, remaining },
  });
  return { task: updated, answered };
}

/**
 * tasks/update: the owner answers outstanding input requests. Unknown or
 * already answered keys are ignored; when none remain the task is working
 * again. Nothing answered means nothing written.
 */
export function answerTaskInput(room: Room, caller: Caller, args: InputOf<'answerTaskInput'>): TaskUpdateOutput {
  return change(room, (changing) => {
    const task = loadVisibleTask(room, caller, args.task_id);
    if (task.owner !== caller.participant) {
      throw new DomainError('forbidden', `only the task's owner (${task.owner}) answers its input requests`);
    }
    if (task.status !== 'input_required') return { task: taskView(room, task), answered: [] };
    const { task: updated, answered } = answerOnTask(room, changing, caller, task, args.input_responses, (key) => [
      'input_responses',
      key,
    ]);
    return { task: taskView(room, updated), answered };
  });
}

/** `in_Ab1 ("Which spelling?")`: an open question as the refusals list it. */
const questionSaid = (input: HandoffInput): string => `${input.key} ("${input.request.params.message}")`;

/**
 * handoff_answer: the owner answers a question of the handoff, named by the
 * handoff. The key may be left out when one request is open; with several,
 * or a key that is not open, the refusal lists the open ones.
 */
export function answerHandoffInput(
  room: Room,
  caller: Caller,
  args: InputOf<'answerHandoffInput'>,
): HandoffAnswerOutput {
  return change(room, (changing) => {
    const handoff = loadHandoff(room, args.handoff_id);
    if (handoff.owner !== caller.participant) {
      throw new DomainError('forbidden', `only the handoff's owner (${handoff.owner}) answers its questions`);
    }
    const task = loadTaskOf(room, handoff);
    const open =
      task.status === 'input_required' ? handoffView(room, handoff).inputs.filter((input) => !input.response) : [];
    if (open.length === 0) {
      throw new DomainError('conflict', `handoff ${handoff.id} has no open question (its task is ${task.status})`, {
        status: task.status,
      });
    }
    const listed = open.map(questionSaid).join(', ');
    const keys = open.map((input) => input.key);
    let key = args.key;
    if (key === undefined) {
      if (open.length > 1) {
        throw invalidField('key', `is needed: handoff ${handoff.id} has ${open.length} open questions: ${listed}`, {
          open: keys,
        });
      }
      key = keys[0]!;
    } else if (!keys.includes(key)) {
      throw invalidField('key', `${key} is not an open question of handoff ${handoff.id}; open: ${listed}`, {
        open: keys,
      });
    }
    const { task: updated } = answerOnTask(room, changing, caller, task, { [key]: args.response }, () => ['response']);
    return {
      handoff: handoffView(room, room.store.getHandoff(handoff.id)!),
      task: taskView(room, updated),
      key,
    };
  });
}
