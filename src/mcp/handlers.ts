// The handler of every MCP method, by the name the generated dispatch table
// gives it. Each calls the engine and returns a result (or a StreamReply);
// errors go to the endpoint's error funnel.
import type { McpHandlerName, McpHandlerParams } from '../../generated/mcp.js';
import type { McpRequestContext } from './context.js';
import { listen } from './listen.js';
import { complete, SUPPORTED_VERSIONS, TASKS_EXTENSION } from './protocol.js';
import { resourceHandlers } from './resources.js';
import { taskHandlers } from './tasks.js';
import { toolHandlers } from './tools.js';

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
        'Common Room: a shared markdown file and a record of handoffs. Read the file with workspace_read (or the workspace:/// resources); propose changes with workspace_propose; hand work to others with handoff_create and follow it with tasks/get.',
      ttlMs: 0,
      cacheScope: 'public' as const,
    }),
  ...toolHandlers,
  ...resourceHandlers,
  ...taskHandlers,
  listen,
};
