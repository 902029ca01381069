// tools/list and tools/call: every tool is an operation of the table, run
// through the engine function the table names.
import { operations } from '../../generated/operations.js';
import { taskTools, toolCatalog, toolOperations, type TaskToolName } from '../../generated/mcp.js';
import type { DetailedTask, Handoff } from '../../generated/types.js';
import { isDomainError, isStorageError } from '../engine/index.js';
import { runOperation } from '../engine/operations.js';
import type { McpRequestContext } from './context.js';
import { toolErrorResult } from './errors.js';
import { CACHE, complete, META, RPC, RpcError, resultMeta } from './protocol.js';

const runsAsTask = (name: string): name is TaskToolName => (taskTools as readonly string[]).includes(name);

/** A task handle (CreateTaskResult), only for a durable task the caller can poll: tasks/get would find it. */
function taskHandle(handoff: Handoff, task: DetailedTask) {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = task;
  return {
    taskId,
    status,
    ...(statusMessage !== undefined ? { statusMessage } : {}),
    createdAt,
    lastUpdatedAt,
    ttlMs,
    pollIntervalMs,
    resultType: 'task' as const,
    _meta: { ...resultMeta(), [META.handoffId]: handoff.handoff_id },
  };
}

export const toolHandlers = {
  listTools: () => complete({ tools: toolCatalog, ...CACHE }),

  callTool: (
    { room, caller, tasksDeclared }: McpRequestContext,
    params: { name: string; arguments?: Record<string, unknown> },
  ) => {
    if (!Object.hasOwn(toolOperations, params.name)) {
      throw new RpcError(RPC.invalidParams, `unknown tool ${params.name}`);
    }
    const operation = operations[toolOperations[params.name as keyof typeof toolOperations]];
    let output: unknown;
    try {
      output = runOperation(room, caller, operation.id, params.arguments ?? {});
    } catch (error) {
      // A refused action is a tool result a model can read and correct itself from; a disk that
      // failed is no refusal of the call, and is a JSON-RPC error.
      if (isDomainError(error) && !isStorageError(error)) return complete(toolErrorResult(error));
      throw error;
    }
    if (tasksDeclared && runsAsTask(params.name)) {
      const { handoff, task } = output as { handoff: Handoff; task: DetailedTask | null };
      if (task) return taskHandle(handoff, task);
    }
    return complete({ content: [{ type: 'text' as const, text: JSON.stringify(output) }], structuredContent: output });
  },
};
