import type { McpHandlerName, McpHandlerParams, TaskToolName, ToolName, ToolTypes } from '../../../generated/mcp.js';
import { taskTools, toolCatalog } from '../../../generated/mcp.js';
import type { Caller } from '../../../generated/types.js';
import {
  acceptHandoff,
  answerInput,
  approveHandoff,
  approveProposal,
  cancelTask,
  completeHandoff,
  createHandoff,
  getHandoff,
  getProposal,
  getTask,
  handoffEvents,
  isDomainError,
  listHandoffs,
  listProposals,
  proposeChange,
  readArtifact,
  rejectHandoff,
  rejectProposal,
  requestInput,
  withdrawProposal,
  workspaceHistory,
  type Room,
  type RoomChange,
} from '../../engine/index.js';
import { STREAMED, type McpRequestContext } from './context.js';
import { rpcErrorFor, toolErrorResult } from './errors.js';
import { META, McpError, RPC, SUPPORTED_VERSIONS, TASKS_EXTENSION, resultMeta } from './protocol.js';
import { resourcesChangedBy, resourceUris, type ResourceKey } from './resources.js';

/** Results carry resultType and the server's identity (MCP 2026-07-28). */
const complete = <T extends object>(result: T) => ({ ...result, resultType: 'complete' as const, _meta: resultMeta() });
/** List results say how long they may be cached; they depend on the session. */
const CACHE = { ttlMs: 0, cacheScope: 'private' as const };

/** Each tool is one engine function; its input and output types come from the catalog. */
const toolOperations: {
  [K in ToolName]: (room: Room, caller: Caller, input: ToolTypes[K]['input']) => ToolTypes[K]['output'];
} = {
  handoff_create: createHandoff,
  handoff_accept: acceptHandoff,
  handoff_request_input: requestInput,
  handoff_complete: completeHandoff,
  handoff_get: getHandoff,
  handoff_events: handoffEvents,
  handoff_approve: approveHandoff,
  handoff_reject: rejectHandoff,
  workspace_propose: proposeChange,
  proposal_get: getProposal,
  proposal_approve: approveProposal,
  proposal_reject: rejectProposal,
  proposal_withdraw: withdrawProposal,
  workspace_history: workspaceHistory,
};

const isToolName = (name: string): name is ToolName => Object.hasOwn(toolOperations, name);
const runsAsTask = (name: ToolName): name is TaskToolName => (taskTools as readonly string[]).includes(name);

/** Runs an engine call of a protocol method; a domain refusal becomes its JSON-RPC error. */
function engine<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (isDomainError(error)) throw rpcErrorFor(error);
    throw error;
  }
}

type Handlers = {
  [K in McpHandlerName]: (c: McpRequestContext, params: McpHandlerParams[K]) => unknown;
};

export const handlers: Handlers = {
  discover: () =>
    complete({
      supportedVersions: SUPPORTED_VERSIONS,
      // The Tasks extension must be advertised as exactly {} (clients read any key as "no support").
      capabilities: { extensions: { [TASKS_EXTENSION]: {} }, tools: {}, resources: { subscribe: true } },
      instructions:
        'Common Room: a shared markdown file and a record of handoffs. Read workspace:/// resources; propose changes with workspace_propose; hand work to others with handoff_create and follow it with tasks/get.',
      ttlMs: 0,
      cacheScope: 'public' as const,
    }),

  listTools: () => complete({ tools: toolCatalog, ...CACHE }),

  callTool: ({ room, caller, tasksDeclared }, params) => {
    if (!isToolName(params.name)) throw new McpError(200, RPC.invalidParams, `unknown tool ${params.name}`);
    const name = params.name;
    const args = params.arguments ?? {};
    let output: unknown;
    try {
      output = (toolOperations[name] as (room: Room, caller: Caller, input: unknown) => unknown)(room, caller, args);
    } catch (error) {
      if (isDomainError(error)) return complete(toolErrorResult(error));
      throw error;
    }
    if (tasksDeclared && runsAsTask(name)) {
      const { handoff, task } = output as ToolTypes[TaskToolName]['output'];
      // A task handle only for a durable task the caller can poll (tasks/get would find it).
      if (task) {
        const { taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = task;
        return {
          taskId,
          status,
          ...('statusMessage' in task && task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
          createdAt,
          lastUpdatedAt,
          ttlMs,
          pollIntervalMs,
          resultType: 'task' as const,
          _meta: { ...resultMeta(), [META.handoffId]: handoff.handoff_id },
        };
      }
    }
    return complete({ content: [{ type: 'text' as const, text: JSON.stringify(output) }], structuredContent: output });
  },

  listResources: ({ room, caller }) => {
    if (!caller.capabilities.includes('read')) return complete({ resources: [], ...CACHE });
    const uris = resourceUris(room);
    return complete({
      resources: [
        {
          uri: uris.artifact,
          name: uris.artifact.slice('workspace:///'.length),
          title: 'The artifact',
          mimeType: 'text/markdown',
        },
        { uri: uris.handoffs, name: 'handoffs', title: 'Handoffs', mimeType: 'application/json' },
        { uri: uris.proposals, name: 'proposals', title: 'Open proposals', mimeType: 'application/json' },
        { uri: uris.history, name: 'history', title: 'Recent history', mimeType: 'application/json' },
      ],
      ...CACHE,
    });
  },

  // The resources capability implies this method; the room has no parameterized resources.
  listResourceTemplates: () => complete({ resourceTemplates: [], ...CACHE }),

  readResource: ({ room, caller }, { uri }) => {
    const uris = resourceUris(room);
    const json = (value: unknown) => ({ uri, mimeType: 'application/json', text: JSON.stringify(value) });
    // A URI the session may not read answers like an unknown one.
    const unknown = () => new McpError(200, RPC.invalidParams, `unknown resource ${uri}`);
    if (!caller.capabilities.includes('read')) throw unknown();
    const contents = engine(() => {
      switch (uri) {
        case uris.artifact:
          return { uri, mimeType: 'text/markdown', text: readArtifact(room, caller).content };
        case uris.handoffs:
          return json(listHandoffs(room, caller, { limit: 500 }));
        case uris.proposals:
          return json(listProposals(room, caller, { limit: 500 }));
        case uris.history:
          return json(workspaceHistory(room, caller, { limit: 500 }));
        default:
          throw unknown();
      }
    });
    return complete({ contents: [contents], ...CACHE });
  },

  subscribeResource: ({ room, caller, streams }, { uri }) => {
    if (!caller.capabilities.includes('read') || !Object.values(resourceUris(room)).includes(uri)) {
      throw new McpError(200, RPC.invalidParams, `unknown resource ${uri}`);
    }
    const uris = streams.legacySubscriptions.get(caller.session_id) ?? new Set<string>();
    uris.add(uri);
    streams.legacySubscriptions.set(caller.session_id, uris);
    return complete({});
  },

  unsubscribeResource: ({ caller, streams }, { uri }) => {
    streams.legacySubscriptions.get(caller.session_id)?.delete(uri);
    return complete({});
  },

  getTask: ({ room, caller }, { taskId }) => complete(engine(() => getTask(room, caller, { task_id: taskId }))),

  updateTask: ({ room, caller }, { taskId, inputResponses }) => {
    engine(() => answerInput(room, caller, { task_id: taskId, input_responses: inputResponses as never }));
    return complete({});
  },

  cancelTask: ({ room, caller }, { taskId }) => {
    engine(() => cancelTask(room, caller, { task_id: taskId }));
    return complete({});
  },

  listen: ({ room, caller, tasksDeclared, requestId, streams, koa }, { notifications }) => {
    if (notifications.taskIds !== undefined && !tasksDeclared) {
      throw missingTasksExtension();
    }
    streams.checkRoom(caller.session_id);
    const uris = resourceUris(room);
    const canRead = caller.capabilities.includes('read');
    const known = new Map(Object.entries(uris).map(([key, uri]) => [uri, key as ResourceKey]));
    // The acknowledgement holds only what will be sent.
    const resourceSubscriptions = canRead
      ? (notifications.resourceSubscriptions ?? []).filter((uri) => known.has(uri))
      : [];
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
    const watchedResources = new Set(resourceSubscriptions.map((uri) => known.get(uri)!));
    const watchedTasks = new Set(taskIds);
    const subscriptionMeta = { [META.subscriptionId]: requestId };
    const changedResources = (change: RoomChange) =>
      resourcesChangedBy(change.event.type).filter((key) => watchedResources.has(key));
    const watchedTask = (change: RoomChange) => change.task !== null && watchedTasks.has(change.task.detailed.taskId);
    const render = (change: RoomChange): unknown[] => {
      const frames: unknown[] = changedResources(change).map((key) => ({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: uris[key], _meta: subscriptionMeta },
      }));
      if (watchedTask(change)) {
        frames.push({
          jsonrpc: '2.0',
          method: 'notifications/tasks',
          params: { ...change.task!.detailed, _meta: subscriptionMeta },
        });
      }
      return frames;
    };
    streams.open({
      req: koa.req,
      res: koa.res,
      sessionId: caller.session_id,
      requestId,
      bus: room.bus,
      filter: (change) => watchedTask(change) || changedResources(change).length > 0,
      first: {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: acknowledged, _meta: subscriptionMeta },
      },
      render,
    });
    return STREAMED;
  },
};

export const missingTasksExtension = () =>
  new McpError(
    400,
    RPC.missingCapability,
    `this request needs the ${TASKS_EXTENSION} extension declared in its _meta clientCapabilities`,
    {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    },
  );
