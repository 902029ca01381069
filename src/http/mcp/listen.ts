// subscriptions/listen: what a listen acknowledges and which changes become
// which frames. The endpoint opens the stream (StreamReply).
import { getTask, type RoomChange } from '../../engine/index.js';
import { StreamReply, type McpRequestContext } from './context.js';
import { META } from './protocol.js';
import { readableUris, resourceUris, viewsChangedBy } from './resources.js';
import { missingTasksExtension } from './tasks.js';

interface ListenParams {
  notifications: { resourceSubscriptions?: string[]; taskIds?: string[] };
}

export function listen(
  { room, caller, tasksDeclared, requestId, streams }: McpRequestContext,
  { notifications }: ListenParams,
) {
  if (notifications.taskIds !== undefined && !tasksDeclared) throw missingTasksExtension();
  streams.checkRoom(caller.session_id);
  const uris = resourceUris(room);
  const readable = readableUris(room, caller);
  // The acknowledgement holds only what will be sent.
  const resourceSubscriptions = (notifications.resourceSubscriptions ?? []).filter((uri) => readable.has(uri));
  const taskIds = (notifications.taskIds ?? []).filter((taskId) => {
    try {
      getTask(room, caller, { task_id: taskId });
      return true;
    } catch {
      return false;
    }
  });
  const acknowledged = {
    ...(resourceSubscriptions.length > 0 ? { resourceSubscriptions } : {}),
    ...(notifications.taskIds !== undefined ? { taskIds } : {}),
  };
  const watchedViews = new Set(resourceSubscriptions.map((uri) => readable.get(uri)!));
  const watchedTasks = new Set(taskIds);
  const subscriptionMeta = { [META.subscriptionId]: requestId };
  const changedViews = (change: RoomChange) => viewsChangedBy(change.event.type).filter((v) => watchedViews.has(v));
  const watchedTask = (change: RoomChange) => change.task !== null && watchedTasks.has(change.task.detailed.taskId);
  return new StreamReply(
    {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: acknowledged, _meta: subscriptionMeta },
    },
    (change) => watchedTask(change) || changedViews(change).length > 0,
    (change) => {
      const frames: unknown[] = changedViews(change).map((view) => ({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: uris[view], _meta: subscriptionMeta },
      }));
      if (watchedTask(change)) {
        frames.push({
          jsonrpc: '2.0',
          method: 'notifications/tasks',
          params: { ...change.task!.detailed, _meta: subscriptionMeta },
        });
      }
      return frames;
    },
  );
}
