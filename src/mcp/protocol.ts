// Constants and shapes of MCP 2026-07-28 and the Tasks extension that this
// server keeps, whatever carries them (see MCP-NOTES in the design, and the
// spec texts). Nothing here knows a transport.

export const PROTOCOL_VERSION = '2026-07-28';
export const SUPPORTED_VERSIONS = [PROTOCOL_VERSION];
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  handoffId: 'commonroom/handoff_id',
} as const;

export const SERVER_INFO = { name: 'commonroom', title: 'Common Room', version: '0.1.0' };
/** The clientInfo name the room's own page sends (page/api.ts): its streams are counted apart. */
export const PAGE_CLIENT_NAME = 'commonroom-page';

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

/**
 * A JSON-RPC error as every transport sends it: code, message, data. A
 * request is either answered with an error (a refused tool argument, an
 * unknown task) or refused as a whole (`refusesRequest`: malformed, an
 * unknown method, an unsupported version, over a limit); a transport may
 * tell the two apart its own way (Streamable HTTP: a 4xx status).
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly refusesRequest = false,
  ) {
    super(message);
  }
  toJSON(): JsonRpcError {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** The request itself is refused: it is not answered by any method. */
export const refusal = (code: number, message: string, data?: unknown): RpcError =>
  new RpcError(code, message, data, true);

export const resultMeta = () => ({ [META.serverInfo]: SERVER_INFO });

/** Results carry resultType and the server's identity (MCP 2026-07-28). */
export const complete = <T extends object>(result: T) => ({
  ...result,
  resultType: 'complete' as const,
  _meta: resultMeta(),
});

/** List results say how long they may be cached; they depend on the session. */
export const CACHE = { ttlMs: 0, cacheScope: 'private' as const };
