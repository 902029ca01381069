// ce task, ce task-cancel: a task is read or cancelled as a participant, never
// by its id alone (a task id is not authorization: design note, Deployment).
// The engine answers another participant's task exactly like an unknown id.
import type { Command } from 'commander';
import type { DetailedTask, TaskCancelOutput } from '../../generated/types.js';
import { reading, writing } from './open-room.js';
import { command, FILE_ARGUMENT } from './options.js';
import { answer, fields, type JsonOption } from './output.js';
import { resultText } from './handoffs.js';

interface TaskOptions extends JsonOption {
  participant: string;
}

const TASK_ARGUMENT = ['<task_id>', 'the task (tk_..., the handoff says which)'] as const;

export function taskCommands(program: Command): void {
  command(program, 'task', 'show a task as its owner or assignee sees it (tasks/get)')
    .argument(...FILE_ARGUMENT)
    .argument(...TASK_ARGUMENT)
    .requiredOption(
      '--participant <name>',
      'read as this participant: the task is shown to its owner and assignee only',
    )
    .addHelpText('after', '\nExample:\n  $ ce task notes.md tk_Xy3... --participant alice')
    .action(async (file: string, taskId: string, options: TaskOptions) => {
      const result = await reading(file, (room, engine) =>
        engine.getTask(room, engine.actAs(room, options.participant, ['read']), { task_id: taskId }),
      );
      answer(options, result, plainTask);
    });

  command(program, 'task-cancel', 'cancel a task as its owner (tasks/cancel); a finished task stays as it was')
    .argument(...FILE_ARGUMENT)
    .argument(...TASK_ARGUMENT)
    .requiredOption('--participant <name>', "cancel as this participant: the task's owner")
    .addHelpText('after', '\nExample:\n  $ ce task-cancel notes.md tk_Xy3... --participant alice')
    .action(async (file: string, taskId: string, options: TaskOptions) => {
      const result = await writing(
        file,
        'ce task-cancel',
        (room, engine) =>
          engine.cancelTask(room, engine.actAs(room, options.participant, ['read', 'write']), { task_id: taskId }),
        // The room process acts as the participant named in a header (src/http/authenticate.ts).
        {
          remote: (running) => running.call('cancelTask', { task_id: taskId }, { participant: options.participant }),
        },
      );
      answer(options, result, plainCancel);
    });
}

function plainTask(task: DetailedTask): string {
  const pairs: [string, string | number | null | undefined][] = [
    ['task', task.taskId],
    ['status', task.status],
    ['message', task.statusMessage],
    ['created', task.createdAt],
    ['updated', task.lastUpdatedAt],
    ['ttl', `${task.ttlMs / 1000} s`],
    ['poll', `${task.pollIntervalMs / 1000} s`],
  ];
  if (task.status === 'input_required') {
    const requests = Object.entries(task.inputRequests).map(([key, request]) => `${key}: ${request!.params.message}`);
    pairs.push(['input requests', requests.join('\n')]);
  }
  if (task.status === 'completed') pairs.push(['result', resultText(task.result)]);
  if (task.status === 'failed') pairs.push(['error', `${task.error.code} ${task.error.message}`]);
  return fields(pairs);
}

function plainCancel({ task, cancelled }: TaskCancelOutput): string {
  return cancelled
    ? `cancelled task ${task.taskId}`
    : `task ${task.taskId} was already ${task.status}; it stays as it was`;
}
