// The room's refusals as MCP says them: a JSON-RPC error for a protocol
// method, a tool result a model can read for a tool. No transport here: how
// an error travels (an HTTP status, a line on stdout) is the transport's.
import type { DomainErrorCode, ToolError } from '../../generated/types.js';
import { isStorageError, type DomainError } from '../errors.js';
import { RPC, RpcError } from './protocol.js';

/** A domain refusal of a protocol method (tasks/*, resources/read) as a JSON-RPC error. */
const codes: Record<DomainErrorCode, number> = {
  unauthorized: RPC.invalidRequest,
  invalid_input: RPC.invalidParams,
  not_found: RPC.invalidParams,
  forbidden: RPC.forbidden,
  conflict: RPC.conflict,
  too_large: RPC.tooLarge,
  limit_reached: RPC.limitReached,
  locked: RPC.locked,
  unavailable: RPC.unavailable,
  disk_full: RPC.unavailable,
};

/** A refusal as its JSON-RPC error; a disk that refused the change says why in data.reason and data.code. */
export function rpcErrorFor(error: DomainError): RpcError {
  if (error.code === 'unauthorized') return new RpcError(codes.unauthorized, error.message);
  if (isStorageError(error))
    return new RpcError(RPC.unavailable, error.message, { ...error.details, code: error.code });
  return new RpcError(
    codes[error.code],
    error.message,
    error.details ? { ...error.details, code: error.code } : { code: error.code },
  );
}

/**
 * A domain refusal of a tool: a tool result with isError, so a model can read
 * it and correct itself. Its structuredContent is a ToolError, which every
 * tool's outputSchema admits.
 */
export function toolErrorResult(error: DomainError) {
  const structuredContent: ToolError = { error: error.toJSON() };
  return { content: [{ type: 'text' as const, text: error.message }], structuredContent, isError: true };
}
