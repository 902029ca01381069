import type Koa from 'koa';
import { mcpMethods, type McpMethod } from '../../../generated/mcp.js';
import type { Room } from '../../engine/index.js';
import { formatValidationErrors } from '../../engine/check-input.js';
import type { McpCaller } from '../authenticate.js';
import { StreamReply } from './context.js';
import { setRpcId } from './errors.js';
import { checkRoutingHeaders, header, mismatch } from './headers.js';
import { handlers } from './handlers.js';
import { missingTasksExtension } from './tasks.js';
import {
  META,
  McpError,
  PROTOCOL_VERSION,
  RPC,
  SUPPORTED_VERSIONS,
  TASKS_EXTENSION,
  type RequestId,
} from './protocol.js';
import { streamOwner, type StreamRegistry } from './streams.js';

interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON-RPC message of a body already parsed (src/http/middleware/read-body.ts). */
function jsonRpcMessage(message: unknown): JsonRpcMessage {
  if (message === undefined)
    throw new McpError(400, RPC.parseError, 'the request body is empty; send one JSON-RPC message');
  if (!isObject(message))
    throw new McpError(400, RPC.invalidRequest, 'the request must be one JSON-RPC object (batches are not supported)');
  if (message.jsonrpc !== '2.0') throw new McpError(400, RPC.invalidRequest, 'jsonrpc must be "2.0"');
  if (typeof message.method !== 'string') throw new McpError(400, RPC.invalidRequest, 'method must be a string');
  if (
    'id' in message &&
    typeof message.id !== 'string' &&
    (typeof message.id !== 'number' || !Number.isInteger(message.id))
  ) {
    throw new McpError(400, RPC.invalidRequest, 'id must be a string or an integer');
  }
  if ('params' in message && !isObject(message.params))
    throw new McpError(400, RPC.invalidRequest, 'params must be an object');
  return message as unknown as JsonRpcMessage;
}

function checkVersion(headers: Koa.Context['headers']): void {
  const version = header(headers, 'mcp-protocol-version');
  if (version === undefined) throw mismatch('the MCP-Protocol-Version header is required');
  if (!SUPPORTED_VERSIONS.includes(version)) {
    throw new McpError(
      400,
      RPC.unsupportedVersion,
      `unsupported protocol version ${version}; this server supports ${PROTOCOL_VERSION}`,
      {
        supported: SUPPORTED_VERSIONS,
        requested: version,
      },
    );
  }
}

/**
 * POST /mcp: one JSON-RPC message per request (Streamable HTTP, MCP
 * 2026-07-28, stateless), from a caller already authenticated
 * (ctx.state.caller). This layer only parses, checks headers and versions,
 * and sends; the generated dispatch table names the handler.
 */
export function mcpEndpoint(room: Room, streams: StreamRegistry, callerOf: (ctx: Koa.Context) => McpCaller) {
  return async (ctx: Koa.Context): Promise<void> => {
    let caller = ctx.state.caller as McpCaller;
    const message = jsonRpcMessage(ctx.state.body);
    setRpcId(ctx, message.id ?? null);
    const params = message.params ?? {};

    // Earlier revisions opened with initialize (basic/versioning.mdx): a client that names one of them, or
    // no version, learns which one to speak; one speaking 2026-07-28 asked for a method it does not have.
    if (message.method === 'initialize' && header(ctx.headers, 'mcp-protocol-version') !== PROTOCOL_VERSION) {
      const requested =
        header(ctx.headers, 'mcp-protocol-version') ??
        (typeof params.protocolVersion === 'string' ? params.protocolVersion : 'unknown');
      throw new McpError(
        400,
        RPC.unsupportedVersion,
        `initialize is not supported: this server speaks MCP ${PROTOCOL_VERSION} only (no initialize, no sessions)`,
        {
          supported: SUPPORTED_VERSIONS,
          requested,
        },
      );
    }
    checkVersion(ctx.headers);

    if (message.id === undefined) {
      // A notification: only cancelling a listen means anything here.
      if (
        message.method === 'notifications/cancelled' &&
        (typeof params.requestId === 'string' || typeof params.requestId === 'number')
      ) {
        streams.cancel(caller.session_id, params.requestId);
      }
      ctx.status = 202;
      ctx.body = ''; // no body, not Koa's status text
      return;
    }

    if (!Object.hasOwn(mcpMethods, message.method)) {
      throw new McpError(404, RPC.methodNotFound, `method not found: ${message.method}`);
    }
    const entry = mcpMethods[message.method as McpMethod];
    checkRoutingHeaders(ctx.headers, message.method, entry.nameParam, params);
    if (!entry.validateParams(params)) {
      throw new McpError(
        400,
        RPC.invalidParams,
        `invalid params: ${formatValidationErrors(entry.validateParams.errors, 'params')}`,
      );
    }
    const meta = params._meta as Record<string, unknown>;
    if (meta[META.protocolVersion] !== header(ctx.headers, 'mcp-protocol-version')) {
      throw mismatch('_meta io.modelcontextprotocol/protocolVersion does not match the MCP-Protocol-Version header');
    }
    const capabilities = meta[META.clientCapabilities] as { extensions?: Record<string, unknown> };
    const tasksDeclared = capabilities.extensions?.[TASKS_EXTENSION] !== undefined;
    if (entry.requiresExtension === TASKS_EXTENSION && !tasksDeclared) throw missingTasksExtension();

    if (message.method === 'subscriptions/listen') {
      // A listen's acknowledgement leaves at once and says what it read: it reads with no batch open, so that is on disk.
      await room.commits.idle();
      // The session may have ended meanwhile: a stream is opened only for a session that holds now.
      caller = callerOf(ctx);
    }
    const handler = handlers[entry.handler] as (c: unknown, p: unknown) => unknown;
    const result = handler({ room, caller, tasksDeclared, requestId: message.id, streams }, params);
    if (result instanceof StreamReply) {
      ctx.respond = false;
      streams.openListen({
        req: ctx.req,
        res: ctx.res,
        owner: streamOwner(room, caller),
        requestId: message.id,
        watch: result.watch,
        first: result.first,
      });
      return;
    }
    ctx.status = 200;
    ctx.body = { jsonrpc: '2.0', id: message.id, result };
  };
}
