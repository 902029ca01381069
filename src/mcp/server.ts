// The MCP server of a room with no transport in it: a JSON-RPC message in,
// an outcome out (a result, a stream to open, or nothing for a
// notification), or an RpcError thrown. The order of the checks is the
// order of the refusals a client sees. Transports (src/http/mcp/ for
// Streamable HTTP; ce bridge carries stdio to it) only frame and send.
import { mcpMethods, type McpMethod } from '../../generated/mcp.js';
import { formatValidationErrors } from '../engine/check-input.js';
import { sessionHolds, type Room } from '../engine/index.js';
import { isOperatorSession, StreamReply, type McpCaller } from './context.js';
import { handlers } from './handlers.js';
import { LegacySubscriptions } from './legacy-subscriptions.js';
import type { ListenWatch } from './listen-fanout.js';
import {
  META,
  PAGE_CLIENT_NAME,
  PROTOCOL_VERSION,
  refusal,
  RPC,
  SUPPORTED_VERSIONS,
  TASKS_EXTENSION,
  type RequestId,
} from './protocol.js';
import { missingTasksExtension } from './tasks.js';

export interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/**
 * What the transport carried beside the message, by MCP's names for it
 * (Streamable HTTP's MCP-Protocol-Version, Mcp-Method and Mcp-Name headers).
 * Read only when a check needs it, so refusals come in the order of the checks.
 */
export type Carried = (name: 'mcp-protocol-version' | 'mcp-method' | 'mcp-name') => string | undefined;

export type Outcome =
  /** A notification: nothing is answered. `cancelled` names a request the client gave up on. */
  | { kind: 'notification'; cancelled: RequestId | null }
  | { kind: 'result'; id: RequestId; result: unknown }
  /** A listen: `first` goes out at once, then what `watch` follows, for `caller`'s session. */
  | { kind: 'stream'; id: RequestId; caller: McpCaller; first: unknown; watch: ListenWatch; fromPage: boolean };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON-RPC message of a body already parsed as JSON. */
export function jsonRpcMessage(message: unknown): JsonRpcMessage {
  if (message === undefined) throw refusal(RPC.parseError, 'the request body is empty; send one JSON-RPC message');
  if (!isObject(message))
    throw refusal(RPC.invalidRequest, 'the request must be one JSON-RPC object (batches are not supported)');
  if (message.jsonrpc !== '2.0') throw refusal(RPC.invalidRequest, 'jsonrpc must be "2.0"');
  if (typeof message.method !== 'string') throw refusal(RPC.invalidRequest, 'method must be a string');
  if (
    'id' in message &&
    typeof message.id !== 'string' &&
    (typeof message.id !== 'number' || !Number.isSafeInteger(message.id))
  ) {
    // Past 2^53 - 1 the parsed number is not the one sent: the answer's id would not be the request's.
    throw refusal(RPC.invalidRequest, 'id must be a string or an integer from -(2^53 - 1) to 2^53 - 1');
  }
  if ('params' in message && !isObject(message.params)) throw refusal(RPC.invalidRequest, 'params must be an object');
  return message as unknown as JsonRpcMessage;
}

export const mismatch = (message: string) => refusal(RPC.headerMismatch, message);

function checkVersion(version: string | undefined): void {
  if (version === undefined) throw mismatch('the MCP-Protocol-Version header is required');
  if (!SUPPORTED_VERSIONS.includes(version)) {
    throw refusal(
      RPC.unsupportedVersion,
      `unsupported protocol version ${version}; this server supports ${PROTOCOL_VERSION}`,
      {
        supported: SUPPORTED_VERSIONS,
        requested: version,
      },
    );
  }
}

/** Mcp-Method names the message's method; a request must carry it (a notification may leave it out). */
function checkMethodHeader(carried: Carried, method: string, required: boolean): void {
  const mcpMethod = carried('mcp-method');
  if (mcpMethod === undefined) {
    if (required) throw mismatch('the Mcp-Method header is required');
    return;
  }
  if (mcpMethod !== method) {
    throw mismatch(`the Mcp-Method header (${mcpMethod}) does not match the body's method (${method})`);
  }
}

/** Mcp-Method must name the message's method; Mcp-Name the param the method names itself by. */
function checkRouting(
  carried: Carried,
  method: string,
  nameParam: string | null,
  params: Record<string, unknown>,
): void {
  checkMethodHeader(carried, method, true);
  if (nameParam === null) return;
  const mcpName = carried('mcp-name');
  if (mcpName === undefined) throw mismatch(`the Mcp-Name header is required for ${method}`);
  if (mcpName !== params[nameParam]) throw mismatch(`the Mcp-Name header does not match params.${nameParam}`);
}

export class McpServer {
  readonly legacySubscriptions = new LegacySubscriptions(
    (sessionId) => isOperatorSession(sessionId) || sessionHolds(this.room, sessionId),
  );

  constructor(readonly room: Room) {}

  /**
   * One message from `caller`. `current` authenticates the caller again: a
   * listen asks it once what it reads is on disk, so that a stream opens
   * only for a session that still holds.
   */
  async handle(
    message: JsonRpcMessage,
    carried: Carried,
    caller: McpCaller,
    current: () => McpCaller,
  ): Promise<Outcome> {
    const params = message.params ?? {};
    // Earlier revisions opened with initialize (basic/versioning.mdx): a client that names one of them, or
    // no version, learns which one to speak; one speaking 2026-07-28 asked for a method it does not have.
    if (message.method === 'initialize' && carried('mcp-protocol-version') !== PROTOCOL_VERSION) {
      const requested =
        carried('mcp-protocol-version') ??
        (typeof params.protocolVersion === 'string' ? params.protocolVersion : 'unknown');
      throw refusal(
        RPC.unsupportedVersion,
        `initialize is not supported: this server speaks MCP ${PROTOCOL_VERSION} only (no initialize, no sessions)`,
        { supported: SUPPORTED_VERSIONS, requested },
      );
    }
    checkVersion(carried('mcp-protocol-version'));

    // A request sent without an id would be taken for a notification and dropped unanswered: refused, so
    // that a client that lost its id learns nothing was done; and a notification carries no id to answer.
    const isRequest = Object.hasOwn(mcpMethods, message.method);
    if (message.id === undefined && isRequest) {
      throw refusal(RPC.invalidRequest, `${message.method} is a request: it needs an id; nothing was done`);
    }
    if (message.id !== undefined && message.method.startsWith('notifications/')) {
      throw refusal(RPC.invalidRequest, `${message.method} is a notification: it takes no id`);
    }
    if (message.id === undefined) {
      // A notification: only cancelling a listen means anything here. Its Mcp-Method may be left out (the
      // official client sends none with notifications/cancelled), but one that names another method is refused.
      checkMethodHeader(carried, message.method, false);
      const requestId = params.requestId;
      const cancels =
        message.method === 'notifications/cancelled' &&
        (typeof requestId === 'string' || typeof requestId === 'number');
      return { kind: 'notification', cancelled: cancels ? requestId : null };
    }

    if (!isRequest) throw refusal(RPC.methodNotFound, `method not found: ${message.method}`);
    const entry = mcpMethods[message.method as McpMethod];
    // The params first: a taskId that is no string is -32602 naming the field, where the Mcp-Name header
    // compared with it could only say the two differ.
    if (!entry.validateParams(params)) {
      throw refusal(
        RPC.invalidParams,
        `invalid params: ${formatValidationErrors(entry.validateParams.errors, 'params')}`,
      );
    }
    checkRouting(carried, message.method, entry.nameParam, params);
    const meta = params._meta as Record<string, unknown>;
    if (meta[META.protocolVersion] !== carried('mcp-protocol-version')) {
      throw mismatch('_meta io.modelcontextprotocol/protocolVersion does not match the MCP-Protocol-Version header');
    }
    const capabilities = meta[META.clientCapabilities] as { extensions?: Record<string, unknown> };
    const tasksDeclared = capabilities.extensions?.[TASKS_EXTENSION] !== undefined;
    if (entry.requiresExtension === TASKS_EXTENSION && !tasksDeclared) throw missingTasksExtension();

    if (message.method === 'subscriptions/listen') {
      // A listen's acknowledgement leaves at once and says what it read: it reads once every batch is on disk.
      await this.room.commits.idle();
      // The session may have ended meanwhile: a stream is opened only for a session that holds now.
      caller = current();
    }
    const handler = handlers[entry.handler] as (c: unknown, p: unknown) => unknown;
    const context = {
      room: this.room,
      caller,
      tasksDeclared,
      requestId: message.id,
      legacySubscriptions: this.legacySubscriptions,
    };
    const result = handler(context, params);
    if (result instanceof StreamReply) {
      const fromPage = (meta[META.clientInfo] as { name?: unknown } | undefined)?.name === PAGE_CLIENT_NAME;
      return { kind: 'stream', id: message.id, caller, first: result.first, watch: result.watch, fromPage };
    }
    return { kind: 'result', id: message.id, result };
  }
}
