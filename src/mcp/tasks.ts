// tasks/get, tasks/update and tasks/cancel (the Tasks extension): each runs
// the operation the table binds to it, with the protocol's names mapped to
// the operation's (taskId → task_id).
import { tasksMethodOperations } from '../../generated/mcp.js';
import { runOperation } from '../engine/operations.js';
import { inDoorTerms, isDomainError } from '../errors.js';
import type { McpRequestContext } from './context.js';
import { complete, refusal, RPC, TASKS_EXTENSION } from './protocol.js';

type Method = keyof typeof tasksMethodOperations;

/** The operation's fields by the names the protocol gives them, for its refusals. */
const PROTOCOL_NAMES = [
  { field: 'task_id', name: 'taskId' },
  { field: 'input_responses', name: 'inputResponses' },
];

function run(method: Method, { room, caller }: McpRequestContext, input: Record<string, unknown>): unknown {
  try {
    return runOperation(room, caller, tasksMethodOperations[method], input);
  } catch (error) {
    throw isDomainError(error) ? inDoorTerms(error, PROTOCOL_NAMES) : error;
  }
}

export const taskHandlers = {
  getTask: (c: McpRequestContext, { taskId }: { taskId: string }) =>
    complete(run('tasks/get', c, { task_id: taskId }) as object),

  updateTask: (c: McpRequestContext, { taskId, inputResponses }: { taskId: string; inputResponses: unknown }) => {
    run('tasks/update', c, { task_id: taskId, input_responses: inputResponses });
    return complete({});
  },

  cancelTask: (c: McpRequestContext, { taskId }: { taskId: string }) => {
    run('tasks/cancel', c, { task_id: taskId });
    return complete({});
  },
};

export const missingTasksExtension = () =>
  refusal(
    RPC.missingCapability,
    `this request needs the ${TASKS_EXTENSION} extension declared in its _meta clientCapabilities`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
