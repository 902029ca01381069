// Constants and shapes of MCP 2026-07-28 and the Tasks extension that this
// server keeps (see docs: MCP-NOTES in the design, and the spec texts).

export const PROTOCOL_VERSION = '2026-07-28';
export const SUPPORTED_VERSIONS = [PROTOCOL_VERSION];
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  handoffId: 'commonroom/handoff_id',
} as const;

export const SERVER_INFO = { name: 'commonroom', title: 'Common Room', version: '0.1.0' };

/** JSON-RPC codes: the standard ones, MCP's, and this server's own (implementation-defined range). */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  headerMismatch: -32020,
  missingCapability: -32021,
  unsupportedVersion: -32022,
  // Domain refusals of protocol methods that are not about the params.
  forbidden: -32003,
  conflict: -32009,
  tooLarge: -32013,
  limitReached: -32029,
  locked: -32030,
  unavailable: -32050,
} as const;

export type RequestId = string | number;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC error answered with an HTTP status; thrown by the MCP layer, caught by its endpoint. */
export class McpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
  toJSON(): JsonRpcError {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export const resultMeta = () => ({ [META.serverInfo]: SERVER_INFO });

/** Results carry resultType and the server's identity (MCP 2026-07-28). */
export const complete = <T extends object>(result: T) => ({
  ...result,
  resultType: 'complete' as const,
  _meta: resultMeta(),
});

/** List results say how long they may be cached; they depend on the session. */
export const CACHE = { ttlMs: 0, cacheScope: 'private' as const };
