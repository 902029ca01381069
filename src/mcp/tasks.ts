// tasks/get, tasks/update and tasks/cancel (the Tasks extension): each runs
// the operation the table binds to it, with the protocol's names mapped to
// the operation's (taskId → task_id).
import { tasksMethodOperations } from '../../generated/mcp.js';
import { runOperation } from '../engine/operations.js';
import type { McpRequestContext } from './context.js';
import { complete, refusal, RPC, TASKS_EXTENSION } from './protocol.js';

type Method = keyof typeof tasksMethodOperations;

function run(method: Method, { room, caller }: McpRequestContext, input: Record<string, unknown>): unknown {
  return runOperation(room, caller, tasksMethodOperations[method], input);
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
