// subscriptions/listen: what a listen acknowledges and so follows. The
// transport opens the stream (StreamReply) once it has room for it;
// listen-fanout.ts turns changes into its messages.
import { runOperation } from '../engine/index.js';
import { StreamReply, type McpRequestContext } from './context.js';
import { META } from './protocol.js';
import { readableUris } from './resource-uris.js';
import { missingTasksExtension } from './tasks.js';

interface ListenParams {
  notifications: { resourceSubscriptions?: string[]; taskIds?: string[] };
}

export function listen({ room, caller, tasksDeclared, requestId }: McpRequestContext, { notifications }: ListenParams) {
  if (notifications.taskIds !== undefined && !tasksDeclared) throw missingTasksExtension();
  const readable = readableUris(room, caller);
  // The acknowledgement holds only what will be sent, each once.
  const resourceSubscriptions = [...new Set(notifications.resourceSubscriptions)].filter((uri) => readable.has(uri));
  const taskIds = [...new Set(notifications.taskIds)].filter((taskId) => {
    try {
      runOperation(room, caller, 'getTask', { task_id: taskId });
      return true;
    } catch {
      return false;
    }
  });
  const acknowledged = {
    ...(resourceSubscriptions.length > 0 ? { resourceSubscriptions } : {}),
    ...(notifications.taskIds !== undefined ? { taskIds } : {}),
  };
  return new StreamReply(
    {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: acknowledged, _meta: { [META.subscriptionId]: requestId } },
    },
    {
      participant: caller.participant,
      taskIds: new Set(taskIds),
      views: new Set(resourceSubscriptions.map((uri) => readable.get(uri)!)),
    },
  );
}
